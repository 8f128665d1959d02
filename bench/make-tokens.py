#!/usr/bin/env python3
"""Signs HS256 bearer tokens for the benchmark with the oct key in bench-hs256.jwk (stdlib only).

Usage: make-tokens.py [--users N] [--issuer URL] [--audience URL] [--jwk FILE] [--prefix bench-user-]
Prints one JWT per line; line i (0-based) is for sub = <prefix><i zero-padded to 3>.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import time


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(claims: dict, secret: bytes, kid: str) -> str:
    header = {"alg": "HS256", "typ": "JWT", "kid": kid}
    signing_input = (b64url(json.dumps(header, separators=(",", ":")).encode())
                     + "." + b64url(json.dumps(claims, separators=(",", ":")).encode()))
    signature = hmac.new(secret, signing_input.encode("ascii"), hashlib.sha256).digest()
    return signing_input + "." + b64url(signature)


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=16)
    parser.add_argument("--issuer", default="https://onceguard.bench")
    # the service refuses a token without its audience, and one that lives longer than a day
    parser.add_argument("--audience", default="https://onceguard.bench/api")
    parser.add_argument("--jwk", default=os.path.join(here, "bench-hs256.jwk"))
    parser.add_argument("--prefix", default="bench-user-")
    args = parser.parse_args()

    with open(args.jwk, encoding="utf-8") as f:
        jwk = json.load(f)
    if jwk.get("kty") != "oct":
        raise SystemExit("expected an oct JWK")
    secret = b64url_decode(jwk["k"])
    now = int(time.time())
    for i in range(args.users):
        sub = "%s%03d" % (args.prefix, i)
        claims = {
            "iss": args.issuer,
            "aud": args.audience,
            "sub": sub,
            "upn": sub,
            "iat": now - 60,
            "exp": now + 12 * 3600,
            "jti": "bench-%d-%d" % (now, i),
        }
        print(sign(claims, secret, jwk.get("kid", "bench")))


if __name__ == "__main__":
    main()
