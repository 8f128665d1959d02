package dev.onceguard.idempotency;

import dev.onceguard.platform.ProblemException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdempotencyKeyTest {

    @Test
    void aStructuredFieldStringMeansItsContent() {
        assertThat(IdempotencyKey.parse("\"abc-123\"")).isEqualTo(IdempotencyKey.parse("abc-123"));
        assertThat(IdempotencyKey.parse("\"a\\\"b\\\\c\"").value()).isEqualTo("a\"b\\c");
    }

    @Test
    void allVisibleAsciiIsAllowed() {
        String visible = new StringBuilder().appendCodePoint(0x21).append("~}|{`_^]\\[@?>=<;:/.-,+*)('&%$#").toString();
        assertThat(IdempotencyKey.parse(visible).value()).isEqualTo(visible);
    }

    @Test
    void missingIsItsOwnError() {
        assertThatThrownBy(() -> IdempotencyKey.parse(null)).isInstanceOf(ProblemException.class)
                .extracting(e -> ((ProblemException) e).problem().code()).isEqualTo("IDEMPOTENCY_KEY_MISSING");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "\"\"", "a b", "ключ", "\"x\"y\"", "\"bad\\n\""})
    void invalidKeys(String header) {
        assertThatThrownBy(() -> IdempotencyKey.parse(header)).isInstanceOf(ProblemException.class)
                .extracting(e -> ((ProblemException) e).problem().code()).isEqualTo("IDEMPOTENCY_KEY_INVALID");
    }

    @Test
    void lengthIsAtMost255() {
        assertThat(IdempotencyKey.parse("k".repeat(255)).value()).hasSize(255);
        assertThatThrownBy(() -> IdempotencyKey.parse("k".repeat(256))).isInstanceOf(ProblemException.class);
    }
}
