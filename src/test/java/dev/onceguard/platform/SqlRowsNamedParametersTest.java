package dev.onceguard.platform;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlRowsNamedParametersTest {

    @Test
    void namesBecomePlaceholdersInTheirOrderAndACollectionOnePerElement() {
        List<Object> bound = new ArrayList<>();
        String sql = SqlRows.positional("UPDATE t SET status = :to, at = :now WHERE id = :id AND status IN (:sources)"
                        + " AND note = :to",
                Map.of("to", "PAID", "now", "n", "id", "ord_1", "sources", List.of("CREATED", "PENDING")), bound);

        assertThat(sql).isEqualTo("UPDATE t SET status = ?, at = ? WHERE id = ? AND status IN (?, ?) AND note = ?");
        assertThat(bound).containsExactly("PAID", "n", "ord_1", "CREATED", "PENDING", "PAID");
    }

    @Test
    void aCastIsNotAParameter() {
        List<Object> bound = new ArrayList<>();

        assertThat(SqlRows.positional("SELECT :at::timestamptz", Map.of("at", "x"), bound))
                .isEqualTo("SELECT ?::timestamptz");
        assertThat(bound).containsExactly("x");
    }

    @Test
    void aNameWithoutAValueIsRefused() {
        assertThatThrownBy(() -> SqlRows.positional("SELECT :missing", Map.of(), new ArrayList<>()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(":missing");
    }
}
