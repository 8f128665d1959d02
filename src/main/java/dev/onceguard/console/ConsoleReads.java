package dev.onceguard.console;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Read-only SQL for the console's pages, mapped row by row to records. Every statement is bounded by
 * {@link #TIMEOUT_SECONDS}: a page that cannot answer fails instead of holding a connection. Parameters:
 * {@link Instant}s become timestamptz, {@code String[]} and {@code Long[]} become text and bigint arrays.
 */
@ApplicationScoped
class ConsoleReads {

    static final int TIMEOUT_SECONDS = 5;

    @FunctionalInterface
    interface Mapper<T> {
        T map(ResultSet row) throws SQLException;
    }

    private final AgroalDataSource dataSource;

    ConsoleReads(AgroalDataSource dataSource) {
        this.dataSource = dataSource;
    }

    <T> List<T> list(String sql, Mapper<T> mapper, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = prepare(connection, sql, parameters);
             ResultSet rows = statement.executeQuery()) {
            List<T> result = new ArrayList<>();
            while (rows.next()) {
                result.add(mapper.map(rows));
            }
            return result;
        } catch (SQLException e) {
            throw new IllegalStateException("console query failed (SQLState " + e.getSQLState() + ")", e);
        }
    }

    <T> Optional<T> one(String sql, Mapper<T> mapper, Object... parameters) {
        List<T> rows = list(sql, mapper, parameters);
        return rows.isEmpty() ? Optional.empty() : Optional.ofNullable(rows.get(0));
    }

    long number(String sql, Object... parameters) {
        return one(sql, row -> row.getLong(1), parameters).orElse(0L);
    }

    static Instant instant(ResultSet row, String column) throws SQLException {
        OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    static Integer nullableInt(ResultSet row, String column) throws SQLException {
        int value = row.getInt(column);
        return row.wasNull() ? null : value;
    }

    private static PreparedStatement prepare(Connection connection, String sql, Object[] parameters) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setQueryTimeout(TIMEOUT_SECONDS);
        for (int i = 0; i < parameters.length; i++) {
            Object parameter = parameters[i];
            if (parameter instanceof Instant instant) {
                statement.setObject(i + 1, instant.atOffset(ZoneOffset.UTC));
            } else if (parameter instanceof String[] texts) {
                statement.setArray(i + 1, connection.createArrayOf("text", texts));
            } else if (parameter instanceof Long[] numbers) {
                statement.setArray(i + 1, connection.createArrayOf("bigint", numbers));
            } else {
                statement.setObject(i + 1, parameter);
            }
        }
        return statement;
    }
}
