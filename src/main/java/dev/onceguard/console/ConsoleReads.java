package dev.onceguard.console;

import dev.onceguard.platform.KeysetQuery;
import dev.onceguard.platform.SqlRows;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Read-only SQL for the console's pages, mapped row by row to records. Every statement is bounded by
 * {@link #TIMEOUT_SECONDS}: a page that cannot answer fails instead of holding a connection. Parameters as
 * {@link SqlRows} binds them.
 */
@ApplicationScoped
class ConsoleReads {

    static final int TIMEOUT_SECONDS = 5;

    private final SqlRows sql;

    ConsoleReads(SqlRows sql) {
        this.sql = sql;
    }

    <T> List<T> list(String statement, SqlRows.Row<T> mapper, Object... parameters) {
        return sql.listWithin(TIMEOUT_SECONDS, statement, mapper, parameters);
    }

    <T> Optional<T> one(String statement, SqlRows.Row<T> mapper, Object... parameters) {
        List<T> rows = list(statement, mapper, parameters);
        return rows.isEmpty() ? Optional.empty() : Optional.ofNullable(rows.get(0));
    }

    /** One page of a keyset-paginated list; {@code position} says where a row stands in the list's order. */
    <T> KeysetPage<T> page(KeysetQuery query, SqlRows.Row<T> mapper, Function<T, Cursor> position) {
        return KeysetPage.of(list(query.sql(), mapper, query.parameters()), query.pageSize(), position);
    }

    long number(String statement, Object... parameters) {
        return one(statement, row -> row.getLong(1), parameters).orElse(0L);
    }

    CappedCount countUpTo(int limit, String table, String condition, Object... parameters) {
        Object[] bound = Arrays.copyOf(parameters, parameters.length + 1);
        bound[parameters.length] = limit + 1;
        return CappedCount.of(number("SELECT count(*) FROM (SELECT 1 FROM " + table + " WHERE " + condition
                + " LIMIT ?) capped", bound), limit);
    }

    static Integer nullableInt(ResultSet row, String column) throws SQLException {
        int value = row.getInt(column);
        return row.wasNull() ? null : value;
    }
}
