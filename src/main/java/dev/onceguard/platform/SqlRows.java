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
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;

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
            try (ResultSet rows = statement.executeQuery()) {
                List<T> found = new ArrayList<>();
                while (rows.next()) {
                    found.add(row.read(rows));
                }
                return found;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("query failed (SQLState " + e.getSQLState() + "): " + firstLine(sql), e);
        }
    }

    /**
     * As {@link #list}, with {@code :name} placeholders bound from {@code parameters} by name; a collection value
     * becomes one placeholder per element (for {@code IN (:names)}). {@code ::} casts are left as they are.
     */
    public <T> List<T> listNamed(String sql, Map<String, Object> parameters, Row<T> row) {
        List<Object> positional = new ArrayList<>();
        return list(positional(sql, parameters, positional), row, positional.toArray());
    }

    static String positional(String sql, Map<String, Object> parameters, List<Object> positional) {
        StringBuilder out = new StringBuilder(sql.length());
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            boolean placeholder = c == ':' && i + 1 < sql.length() && Character.isJavaIdentifierStart(sql.charAt(i + 1))
                    && (i == 0 || sql.charAt(i - 1) != ':');
            if (!placeholder) {
                out.append(c);
                i++;
                continue;
            }
            int end = i + 1;
            while (end < sql.length() && Character.isJavaIdentifierPart(sql.charAt(end))) {
                end++;
            }
            String name = sql.substring(i + 1, end);
            if (!parameters.containsKey(name)) {
                throw new IllegalArgumentException("no value for parameter :" + name + " in: " + firstLine(sql));
            }
            Object value = parameters.get(name);
            if (value instanceof Collection<?> values) {
                out.append(String.join(", ", Collections.nCopies(values.size(), "?")));
                positional.addAll(values);
            } else {
                out.append('?');
                positional.add(value);
            }
            i = end;
        }
        return out.toString();
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

    /** Runs {@code sql} once for each parameter row, in one batch. */
    public void batch(String sql, List<Object[]> parameterRows) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (Object[] parameters : parameterRows) {
                bind(statement, 1, parameters);
                statement.addBatch();
            }
            statement.executeBatch();
        } catch (SQLException e) {
            throw new IllegalStateException("batch failed (SQLState " + e.getSQLState() + "): " + firstLine(sql), e);
        }
    }

    /**
     * As {@link #update}, on a connection the caller holds, such as the one a Flyway callback is given inside its
     * migration's transaction.
     */
    public static int update(Connection connection, String sql, Object... parameters) {
        try (PreparedStatement statement = prepared(connection, sql, parameters)) {
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
