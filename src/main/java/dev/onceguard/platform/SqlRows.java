package dev.onceguard.platform;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Plain JDBC on the connection of the caller's transaction, for the request path's stores and the console's reads:
 * no Hibernate session is opened, nothing is parsed or dirty-checked beyond the driver's own work. An {@link Instant}
 * is bound as a timestamptz, a {@code String[]} or {@code Long[]} as a text or bigint array (for {@code = ANY(?)}).
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
        return listWithin(0, sql, row, parameters);
    }

    /** As {@link #list}, failing when the database has not answered within {@code timeoutSeconds} (0: no limit). */
    public <T> List<T> listWithin(int timeoutSeconds, String sql, Row<T> row, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = prepared(connection, sql, parameters)) {
            statement.setQueryTimeout(timeoutSeconds);
            return rows(statement, row);
        } catch (SQLException e) {
            throw new IllegalStateException("query failed (SQLState " + e.getSQLState() + "): " + firstLine(sql), e);
        }
    }

    private static <T> List<T> rows(PreparedStatement statement, Row<T> row) throws SQLException {
        try (ResultSet rows = statement.executeQuery()) {
            List<T> found = new ArrayList<>();
            while (rows.next()) {
                found.add(row.read(rows));
            }
            return found;
        }
    }

    /** @return the number of rows the statement changed */
    public int update(String sql, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = prepared(connection, sql, parameters)) {
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("statement failed (SQLState " + e.getSQLState() + "): " + firstLine(sql), e);
        }
    }

    /**
     * Binds an instant (or null) as its ISO-8601 text, typed by the statement: the driver's own timestamp binding
     * builds a calendar for every statement it binds one in, a cost the hot path pays several times per request.
     */
    public static void setInstant(PreparedStatement statement, int index, Instant at) throws SQLException {
        statement.setObject(index, at == null ? null : at.toString(), Types.OTHER);
    }

    public static Instant instant(ResultSet row, String column) throws SQLException {
        OffsetDateTime at = row.getObject(column, OffsetDateTime.class);
        return at == null ? null : at.toInstant();
    }

    private static PreparedStatement prepared(Connection connection, String sql, Object[] parameters)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        bind(statement, 1, parameters);
        return statement;
    }

    /** Binds {@code parameters} to the statement's placeholders from index {@code first} on, as {@link #list} does. */
    public static void bind(PreparedStatement statement, int first, Object... parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            Object value = parameters[i];
            int index = first + i;
            if (value instanceof Instant at) {
                setInstant(statement, index, at);
            } else if (value instanceof String[] texts) {
                statement.setArray(index, statement.getConnection().createArrayOf("text", texts));
            } else if (value instanceof Long[] numbers) {
                statement.setArray(index, statement.getConnection().createArrayOf("bigint", numbers));
            } else {
                statement.setObject(index, value);
            }
        }
    }

    private static String firstLine(String sql) {
        return sql.strip().lines().findFirst().orElse("");
    }
}
