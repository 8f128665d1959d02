package dev.onceguard.platform;

import org.junit.jupiter.api.Test;

import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class RecentEntriesTest {

    @Test
    void keepsTheLatestHalfOfItsSizeAtLeastAndNeverMoreThanItsSize() {
        RecentEntries<Integer, String> entries = new RecentEntries<>(100);
        IntStream.range(0, 1_000).forEach(i -> entries.put(i, "v" + i));

        long kept = IntStream.range(0, 1_000).filter(i -> entries.get(i) != null).count();

        assertThat(kept).isBetween(50L, 100L);
        assertThat(IntStream.range(950, 1_000).allMatch(i -> ("v" + i).equals(entries.get(i)))).isTrue();
    }

    @Test
    void aRemovedEntryIsGoneFromEitherGeneration() {
        RecentEntries<Integer, String> entries = new RecentEntries<>(4);
        entries.put(0, "zero");
        entries.remove(0);
        entries.put(1, "one");
        entries.put(2, "two");
        entries.put(3, "three");

        entries.remove(1);
        entries.remove(3);

        assertThat(entries.get(0)).isNull();
        assertThat(entries.get(1)).isNull();
        assertThat(entries.get(3)).isNull();
        assertThat(entries.get(2)).isEqualTo("two");
    }
}
