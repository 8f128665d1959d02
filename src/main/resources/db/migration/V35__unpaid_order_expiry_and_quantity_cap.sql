-- Unpaid orders expire: the job looks for orders AWAITING_PAYMENT placed before the TTL's cutoff, oldest first. Only
-- the few unpaid orders are in this index, however many paid ones the table holds (decision 0032).
CREATE INDEX orders_awaiting_payment ON orders (created_at) WHERE status = 'AWAITING_PAYMENT';

-- A product's own cap on the units one order may hold of it (the catalog file's maxQuantityPerOrder); null: the
-- service's onceguard.checkout.max-quantity-per-product.
ALTER TABLE products ADD COLUMN max_quantity_per_order integer CHECK (max_quantity_per_order > 0);
