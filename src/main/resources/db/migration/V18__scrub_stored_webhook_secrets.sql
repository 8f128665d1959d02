-- Inbox events stored before the inbox hid secrets may still hold a Stripe PaymentIntent's client_secret (or another
-- value under a secret-looking name). This applies the inbox's own rule (SecretFields) to them in place: at any depth,
-- every non-null value under a name containing secret, token, password, api_key/apikey or signature becomes
-- "[not shown]"; everything else stays as it was. Rows without such a name are not rewritten.
CREATE OR REPLACE FUNCTION pg_temp.onceguard_hide_secrets(value jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE jsonb_typeof(value)
        WHEN 'object' THEN (
            SELECT coalesce(jsonb_object_agg(key,
                       CASE WHEN lower(key) ~ '(secret|token|password|api_?key|signature)'
                                 AND jsonb_typeof(field) <> 'null'
                            THEN to_jsonb('[not shown]'::text)
                            ELSE pg_temp.onceguard_hide_secrets(field) END), '{}'::jsonb)
              FROM jsonb_each(value) AS fields(key, field))
        WHEN 'array' THEN (
            SELECT coalesce(jsonb_agg(pg_temp.onceguard_hide_secrets(element) ORDER BY position), '[]'::jsonb)
              FROM jsonb_array_elements(value) WITH ORDINALITY AS elements(element, position))
        ELSE value
    END
$$;

WITH scrubbed AS (
    SELECT id, pg_temp.onceguard_hide_secrets(payload) AS payload
      FROM webhook_inbox
     WHERE CAST(payload AS text) ~* '(secret|token|password|api_?key|signature)'
)
UPDATE webhook_inbox inbox
   SET payload = scrubbed.payload
  FROM scrubbed
 WHERE inbox.id = scrubbed.id AND inbox.payload <> scrubbed.payload;

DROP FUNCTION pg_temp.onceguard_hide_secrets(jsonb);
