package dev.onceguard.console;

import jakarta.ws.rs.core.Response;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A filtered console list as CSV ({@code ?format=csv} on the list's own address, its filters kept): every row the
 * list has, page after page in the list's own order, up to {@value #MAX_ROWS}; the last line says when the list
 * went on. Values are quoted as RFC 4180 says, and a value that a spreadsheet would run as a formula
 * ({@code = + - @} first) is written with a leading apostrophe.
 */
final class CsvExport {

    static final int MAX_ROWS = 10_000;
    static final String FORMAT = "csv";

    /** One column: its header and how a row gives its value (times as ISO-8601 UTC). */
    record Column<T>(String name, Function<T, Object> value) {
    }

    private CsvExport() {
    }

    static boolean wanted(String format) {
        return FORMAT.equals(format);
    }

    static <T> Response of(String name, List<Column<T>> columns, Function<Optional<Cursor>, KeysetPage<T>> pageAfter) {
        List<T> rows = new ArrayList<>();
        Optional<Cursor> position = Optional.empty();
        do {
            KeysetPage<T> page = pageAfter.apply(position);
            rows.addAll(page.rows());
            position = Optional.ofNullable(page.next());
        } while (position.isPresent() && rows.size() < MAX_ROWS);
        StringBuilder csv = new StringBuilder();
        csv.append(String.join(",", columns.stream().map(c -> quoted(c.name())).toList())).append("\r\n");
        for (T row : rows.subList(0, Math.min(rows.size(), MAX_ROWS))) {
            csv.append(String.join(",", columns.stream()
                    .map(c -> quoted(Objects.toString(c.value().apply(row), ""))).toList())).append("\r\n");
        }
        if (position.isPresent()) {
            csv.append(quoted("The list goes on: only its first " + MAX_ROWS + " rows are exported; narrow the filters."))
                    .append("\r\n");
        }
        return Response.ok(csv.toString())
                .type("text/csv; charset=UTF-8")
                .header("Content-Disposition", "attachment; filename=\"onceguard-" + name + ".csv\"")
                .build();
    }

    static String quoted(String value) {
        String safe = !value.isEmpty() && "=+-@\t\r".indexOf(value.charAt(0)) >= 0 ? "'" + value : value;
        if (safe.contains(",") || safe.contains("\"") || safe.contains("\n") || safe.contains("\r")) {
            return "\"" + safe.replace("\"", "\"\"") + "\"";
        }
        return safe;
    }
}
