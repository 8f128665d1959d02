package dev.onceguard.platform;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The one statement of a keyset-paginated list: a SELECT, the conditions that apply (each written in code with
 * {@code ?} placeholders; every value is bound, never put into the text), an optional position to continue strictly
 * after, ordered by (time, id) and limited to one row more than the page shows, so the reader knows whether a next page
 * follows. Through an index on the same (time, id), a page reads as many rows as it shows, however deep it is.
 */
public final class KeysetQuery {

    private final String select;
    private final String time;
    private final String id;
    private final boolean newestFirst;
    private final List<String> conditions = new ArrayList<>();
    private final List<Object> values = new ArrayList<>();
    private final int pageSize;

    private KeysetQuery(String select, String time, String id, boolean newestFirst, int pageSize) {
        this.select = select;
        this.time = time;
        this.id = id;
        this.newestFirst = newestFirst;
        this.pageSize = pageSize;
    }

    /** {@code select} (a SELECT ... FROM, without WHERE) read by ({@code time}, {@code id}) descending. */
    public static KeysetQuery newestFirst(String select, String time, String id, int pageSize) {
        return new KeysetQuery(select, time, id, true, pageSize);
    }

    /** {@code select} (a SELECT ... FROM, without WHERE) read by ({@code time}, {@code id}) ascending. */
    public static KeysetQuery oldestFirst(String select, String time, String id, int pageSize) {
        return new KeysetQuery(select, time, id, false, pageSize);
    }

    /** A condition every row must meet, with the values of its placeholders in order. */
    public KeysetQuery where(String condition, Object... boundValues) {
        conditions.add(condition);
        values.addAll(List.of(boundValues));
        return this;
    }

    /** {@link #where} when the filter has a value; a filter left empty (null) adds nothing. */
    public KeysetQuery whereGiven(String condition, Object value) {
        return value == null ? this : where(condition, value);
    }

    /** Continues strictly after the row at ({@code at}, {@code rowId}) in the list's order; null: from the start. */
    public KeysetQuery after(Instant at, Object rowId) {
        if (at == null) {
            return this;
        }
        return where("(" + time + ", " + id + ") " + (newestFirst ? "<" : ">") + " (?, ?)", at, rowId);
    }

    public int pageSize() {
        return pageSize;
    }

    public String sql() {
        String direction = newestFirst ? " DESC" : "";
        return select + (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions))
                + " ORDER BY " + time + direction + ", " + id + direction + " LIMIT ?";
    }

    public Object[] parameters() {
        List<Object> bound = new ArrayList<>(values);
        bound.add(pageSize + 1);
        return bound.toArray();
    }
}
