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
 * Read-only SQL for the investigation pages, mapped row by row to records. Every statement is a bounded, indexed
 * read; nothing here writes.
 */
@ApplicationScoped
public class SqlReads {

    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet row) throws SQLException;
    }

    private final AgroalDataSource dataSource;

    public SqlReads(AgroalDataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * Runs {@code sql} with {@code parameters} ({@link Instant}s become timestamptz, {@code String[]} and {@code Long[]} arrays).
     */
    public <T> List<T> list(String sql, RowMapper<T> mapper, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameterValue(connection, parameters[i]));
            }
            try (ResultSet rows = statement.executeQuery()) {
                List<T> result = new ArrayList<>();
                while (rows.next()) {
                    result.add(mapper.map(rows));
                }
                return result;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("console query failed: " + e.getMessage(), e);
        }
    }

    public <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... parameters) {
        List<T> rows = list(sql, mapper, parameters);
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    public static Instant instant(ResultSet row, String column) throws SQLException {
        OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    public static Integer nullableInt(ResultSet row, String column) throws SQLException {
        int value = row.getInt(column);
        return row.wasNull() ? null : value;
    }

    private static Object parameterValue(Connection connection, Object parameter) throws SQLException {
        if (parameter instanceof Instant instant) {
            return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
        }
        if (parameter instanceof String[] texts) {
            return connection.createArrayOf("text", texts);
        }
        if (parameter instanceof Long[] numbers) {
            return connection.createArrayOf("bigint", numbers);
        }
        return parameter;
    }
}
