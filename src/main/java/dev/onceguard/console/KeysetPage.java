package dev.onceguard.console;

import java.util.List;
import java.util.function.Function;

/** One page of a keyset-paginated list: its rows, and the position of its last row when more rows follow. */
public record KeysetPage<T>(List<T> rows, Cursor next) {

    static final int SIZE = 50;

    /**
     * @param read     the rows read with {@code LIMIT pageSize + 1}: one more than the page shows says there is more
     * @param position where a row stands in the list's order
     */
    static <T> KeysetPage<T> of(List<T> read, int pageSize, Function<T, Cursor> position) {
        if (read.size() <= pageSize) {
            return new KeysetPage<>(List.copyOf(read), null);
        }
        List<T> shown = List.copyOf(read.subList(0, pageSize));
        return new KeysetPage<>(shown, position.apply(shown.get(pageSize - 1)));
    }
}
