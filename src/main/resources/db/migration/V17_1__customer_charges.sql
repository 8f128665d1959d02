-- The console's customer view: one user's charges (SUCCEEDED payments) in a period, without walking the payments
-- of everyone. Only charges are indexed, a small part of the attempts.
CREATE INDEX payments_charges_by_user ON payments (user_id, created_at) WHERE status = 'SUCCEEDED';
