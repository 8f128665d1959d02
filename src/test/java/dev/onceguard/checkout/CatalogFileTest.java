package dev.onceguard.checkout;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The catalog file's shape, that of GET /api/products (with an optional cap per order), and the errors that name the file and the product. */
class CatalogFileTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FILE = "/etc/onceguard/catalog.json";
    private static final String GOOD = """
            {"productId": "sku-1", "name": "Keyboard", "kind": "PHYSICAL", "price": "89.90", "currency": "EUR", "available": 3}""";

    @Test
    void readsEveryFieldAndNullAsUnlimited() {
        var entries = CatalogFile.parse(FILE, bytes("[" + GOOD + ","
                + GOOD.replace("sku-1", "sku-2").replace("PHYSICAL", "DIGITAL").replace("\"available\": 3", "\"available\": null")
                + "]"), JSON);

        assertThat(entries).containsExactly(
                new CatalogFile.Entry("sku-1", "Keyboard", Product.Kind.PHYSICAL, new BigDecimal("89.90"), "EUR", 3, null),
                new CatalogFile.Entry("sku-2", "Keyboard", Product.Kind.DIGITAL, new BigDecimal("89.90"), "EUR", null, null));
    }

    @Test
    void aProductMaySetTheUnitsOneOrderMayHoldOfIt() {
        String capped = GOOD.replace("\"available\": 3", "\"available\": 3, \"maxQuantityPerOrder\": 2");
        String uncapped = GOOD.replace("sku-1", "sku-2")
                .replace("\"available\": 3", "\"available\": 3, \"maxQuantityPerOrder\": null");

        var entries = CatalogFile.parse(FILE, bytes("[" + capped + "," + uncapped + "]"), JSON);

        assertThat(entries).extracting(CatalogFile.Entry::maxQuantityPerOrder).containsExactly(2, null);
    }

    @Test
    void theDemoCatalogIsACatalogFile() throws Exception {
        try (var in = CatalogFileTest.class.getClassLoader().getResourceAsStream(CatalogLoader.DEMO_CATALOG)) {
            assertThat(CatalogFile.parse(CatalogLoader.DEMO_CATALOG, in.readAllBytes(), JSON))
                    .extracting(CatalogFile.Entry::productId).containsExactly(DemoRowsOfMigrationV2.PRODUCT_IDS);
        }
    }

    @Test
    void aFileThatIsNotJsonIsNamed() {
        assertThatThrownBy(() -> CatalogFile.parse(FILE, bytes("[{\"productId\": "), JSON))
                .isInstanceOf(CatalogFileInvalid.class).hasMessageStartingWith("Catalog file " + FILE + " is not JSON");
        assertThatThrownBy(() -> CatalogFile.parse(FILE, bytes(GOOD), JSON))
                .hasMessage("Catalog file " + FILE + " must be a JSON array of products");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "\"kind\": \"PHYSICAL\"|\"kind\": \"SERVICE\"|has kind \"SERVICE\"; it must be DIGITAL or PHYSICAL",
            "\"price\": \"89.90\"|\"price\": 89.90|has price 89.9; it must be a string",
            "\"price\": \"89.90\"|\"price\": \"89.901\"|has price \"89.901\"; it must be a string",
            "\"price\": \"89.90\"|\"price\": \"-1.00\"|has price \"-1.00\"",
            "\"currency\": \"EUR\"|\"currency\": \"eur\"|has currency \"eur\"; it must be an ISO 4217 code",
            "\"available\": 3|\"available\": -1|has available -1; it must be the units in stock",
            "\"available\": 3|\"available\": 1.5|has available 1.5",
            "\"available\": 3|\"available\": \"3\"|has available \"3\"",
            ", \"available\": 3||lacks \"available\" (units in stock, or null for unlimited)",
            "\"name\": \"Keyboard\"|\"name\": \"\"|has name \"\"; it must be a non-empty string",
            "\"name\": \"Keyboard\"|\"name\": \"Key\\u0000board\"|has a name longer than 300 characters or with control characters",
            "\"available\": 3|\"available\": 3, \"stock\": 3|has the unknown field \"stock\"",
            "\"available\": 3|\"available\": 3, \"maxQuantityPerOrder\": 0|has maxQuantityPerOrder 0; it must be the units",
            "\"available\": 3|\"available\": 3, \"maxQuantityPerOrder\": \"5\"|has maxQuantityPerOrder \"5\"",
    })
    void anInvalidProductIsNamedWithTheFile(String field, String replacement, String problem) {
        String second = GOOD.replace("sku-1", "sku-2").replace(field, replacement == null ? "" : replacement);

        assertThatThrownBy(() -> CatalogFile.parse(FILE, bytes("[" + GOOD + "," + second + "]"), JSON))
                .isInstanceOf(CatalogFileInvalid.class)
                .hasMessageStartingWith("Catalog file " + FILE + ": product \"sku-2\" (entry 2) " + problem);
    }

    @Test
    void anEntryWithoutAProductIdIsNamedByItsPosition() {
        assertThatThrownBy(() -> CatalogFile.parse(FILE, bytes("[" + GOOD + "," + GOOD.replace("\"sku-1\"", "7") + "]"), JSON))
                .hasMessage("Catalog file " + FILE + ": entry 2 has productId 7; it must be a non-empty string");
        assertThatThrownBy(() -> CatalogFile.parse(FILE, bytes("[" + GOOD + ", 3]"), JSON))
                .hasMessage("Catalog file " + FILE + ": entry 2 must be a JSON object");
    }

    @Test
    void aProductTwiceIsRefused() {
        assertThatThrownBy(() -> CatalogFile.parse(FILE, bytes("[" + GOOD + "," + GOOD + "]"), JSON))
                .hasMessage("Catalog file " + FILE + ": product \"sku-1\" (entry 2) appears more than once in the file");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
