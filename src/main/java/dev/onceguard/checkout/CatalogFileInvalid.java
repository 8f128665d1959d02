package dev.onceguard.checkout;

/** A catalog file that cannot be loaded; the message names the file and, where it can, the product. */
public class CatalogFileInvalid extends RuntimeException {

    CatalogFileInvalid(String message) {
        super(message);
    }

    CatalogFileInvalid(String message, Throwable cause) {
        super(message, cause);
    }
}
