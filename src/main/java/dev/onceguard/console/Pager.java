package dev.onceguard.console;

import jakarta.ws.rs.core.UriBuilder;

/** The links under a keyset-paginated list: its first page and, when there is more, the next one, filters kept. */
public record Pager(String first, String next) {

    /** @param filters name, value, name, value...; a null or empty value is left out of the links */
    static Pager of(String path, String nextCursor, String... filters) {
        UriBuilder link = UriBuilder.fromPath(path);
        for (int i = 0; i < filters.length; i += 2) {
            if (filters[i + 1] != null && !filters[i + 1].isEmpty()) {
                link.queryParam(filters[i], filters[i + 1]);
            }
        }
        String first = link.build().toString();
        String next = nextCursor == null ? null : link.queryParam("after", nextCursor).build().toString();
        return new Pager(first, next);
    }
}
