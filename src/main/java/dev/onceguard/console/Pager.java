package dev.onceguard.console;

import java.util.StringJoiner;

/**
 * The links under a keyset-paginated list, filters kept: back to its first page when the page shown is a later one,
 * and on to the next page when there is more ({@code templates/console/pager.html} draws them).
 */
public record Pager(String first, String next, boolean continued) {

    /** The whole list under the same filters as CSV. */
    public String csv() {
        return first + (first.contains("?") ? "&" : "?") + "format=" + CsvExport.FORMAT;
    }

    /**
     * @param continued whether the page shown is a later one (its request had a position)
     * @param next      the position of the next page, null on the last one
     * @param filters   name, value, name, value...; a null or empty value is left out of the links
     */
    static Pager of(String path, boolean continued, Cursor next, String... filters) {
        StringJoiner query = new StringJoiner("&", "?", "").setEmptyValue("");
        for (int i = 0; i < filters.length; i += 2) {
            if (filters[i + 1] != null && !filters[i + 1].isEmpty()) {
                query.add(filters[i] + "=" + ConsoleLinks.queryValue(filters[i + 1]));
            }
        }
        String first = path + query;
        String nextPage = next == null ? null
                : path + query.add("after=" + ConsoleLinks.queryValue(next.token()));
        return new Pager(first, nextPage, continued);
    }
}
