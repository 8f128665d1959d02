package dev.onceguard.platform;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Plain JDBC on the connection of the caller's transaction, for the stores whose statements run on the request path:
 * no Hibernate session is opened, nothing is parsed or dirty-checked beyond the driver's own work. An {@link Instant}
 * is bound as a timestamp, a {@code String[]} as a text array (for {@code = ANY(?)}).
 */
@ApplicationScoped
public class SqlRows {

    @FunctionalInterface
    public interface Row<T> {
        T read(ResultSet row) throws SQLException;
    }

    private final AgroalDataSource dataSource;

    public SqlRows(AgroalDataSource dataSource) {
        this.dataSource = dataSource;
    }

    public <T> List<T> list(String sql, Row<T> row, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = prepared(connection, sql, parameters);
             ResultSet rows = statement.executeQuery()) {
            List<T> found = new ArrayList<>();
            while (rows.next()) {
                found.add(row.read(rows));
            }
            return found;
        } catch (SQLException e) {
            throw new IllegalStateException("query failed: " + firstLine(sql), e);
        }
    }

    /** @return the number of rows the statement changed */
    public int update(String sql, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = prepared(connection, sql, parameters)) {
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("statement failed: " + firstLine(sql), e);
        }
    }

    public static Instant instant(ResultSet row, String column) throws SQLException {
        Timestamp at = row.getTimestamp(column);
        return at == null ? null : at.toInstant();
    }

    private static PreparedStatement prepared(Connection connection, String sql, Object[] parameters)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        for (int i = 0; i < parameters.length; i++) {
            Object value = parameters[i];
            if (value instanceof Instant at) {
                statement.setTimestamp(i + 1, Timestamp.from(at));
            } else if (value instanceof String[] texts) {
                statement.setArray(i + 1, connection.createArrayOf("text", texts));
            } else {
                statement.setObject(i + 1, value);
            }
        }
        return statement;
    }

    private static String firstLine(String sql) {
        return sql.strip().lines().findFirst().orElse("");
    }
}
