package dev.onceguard.payment.yookassa;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The networks a provider sends its notifications from, as addresses and CIDRs (IPv4 and IPv6), and whether an
 * address is in one of them. Only address literals are read: a name is refused, never resolved.
 */
final class SourceNetworks {

    private static final Pattern LITERAL = Pattern.compile("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

    private record Network(byte[] prefix, int bits) {

        boolean contains(byte[] address) {
            if (address.length != prefix.length) {
                return false;
            }
            for (int bit = 0; bit < bits; bit++) {
                int mask = 0x80 >>> (bit % 8);
                if ((address[bit / 8] & mask) != (prefix[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }

    private final List<Network> networks;

    private SourceNetworks(List<Network> networks) {
        this.networks = networks;
    }

    /** @throws IllegalArgumentException for an entry that is not an address or a CIDR */
    static SourceNetworks of(List<String> entries) {
        return new SourceNetworks(entries.stream().map(String::trim).filter(e -> !e.isEmpty())
                .map(SourceNetworks::network).toList());
    }

    boolean contains(String address) {
        byte[] bytes = literal(address);
        return bytes != null && networks.stream().anyMatch(n -> n.contains(bytes));
    }

    private static Network network(String entry) {
        int slash = entry.indexOf('/');
        byte[] prefix = literal(slash < 0 ? entry : entry.substring(0, slash));
        if (prefix == null) {
            throw new IllegalArgumentException("not an address or a CIDR: " + entry);
        }
        int bits = prefix.length * 8;
        if (slash >= 0) {
            try {
                bits = Integer.parseInt(entry.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a CIDR: " + entry, e);
            }
            if (bits < 0 || bits > prefix.length * 8) {
                throw new IllegalArgumentException("prefix length out of range: " + entry);
            }
        }
        return new Network(prefix, bits);
    }

    private static byte[] literal(String address) {
        if (address == null || !LITERAL.matcher(address).matches()) {
            return null;
        }
        try {
            return InetAddress.getByName(address).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
