package dev.onceguard.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BodyDiffTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    @Test
    void changedAddedAndLeftOutFieldsInTheOrderTheyFirstAppear() throws Exception {
        JsonNode first = json("{\"items\":[{\"productId\":\"p-184\",\"quantity\":1},{\"productId\":\"p-220\",\"quantity\":1}],\"currency\":\"RUB\"}");
        JsonNode refused = json("{\"currency\":\"EUR\",\"items\":[{\"productId\":\"p-184\",\"quantity\":3}],\"coupon\":\"X\"}");

        assertThat(BodyDiff.between(first, refused)).containsExactly(
                new BodyDiff.Change("items[0].quantity", "1", "3"),
                new BodyDiff.Change("items[1].productId", "\"p-220\"", null),
                new BodyDiff.Change("items[1].quantity", "1", null),
                new BodyDiff.Change("currency", "\"RUB\"", "\"EUR\""),
                new BodyDiff.Change("coupon", null, "\"X\""));
        assertThat(BodyDiff.between(first, refused).get(1).what()).isEqualTo("left out");
        assertThat(BodyDiff.between(first, refused).get(4).what()).isEqualTo("added");
    }

    @Test
    void sameFieldsInAnotherOrderAreNoChangeAndAMissingBodyGivesNone() throws Exception {
        assertThat(BodyDiff.between(json("{\"a\":1,\"b\":[2]}"), json("{\"b\":[2],\"a\":1}"))).isEmpty();
        assertThat(BodyDiff.between(null, json("{\"a\":1}"))).isEmpty();
    }
}
