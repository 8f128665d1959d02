package dev.onceguard.checkout;

public record ProductView(String productId, String name, String kind, String price, String currency, Integer available) {

    public static ProductView of(Product product) {
        return new ProductView(product.productId(), product.name(), product.kind().name(), OrderView.money(product.price()),
                product.currency(), product.stock());
    }
}
