-- The catalog every install starts with (see the contract's "Catalog and orders").
INSERT INTO products (product_id, name, kind, price, currency, stock) VALUES
    ('p-184', 'E-book: Designing Idempotent APIs', 'DIGITAL', 1500.00, 'RUB', NULL),
    ('p-220', 'Online course: Payments 101', 'DIGITAL', 4900.00, 'RUB', NULL),
    ('p-310', 'Mechanical keyboard', 'PHYSICAL', 8990.00, 'RUB', 25),
    ('p-404', 'Limited edition mug', 'PHYSICAL', 990.00, 'RUB', 0);
