package dev.onceguard;

import io.agroal.api.AgroalDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Plain SQL against the test database, to check what a request left behind. */
public final class Database {

    private Database() {
    }

    public static long count(AgroalDataSource dataSource, String sql, Object... parameters) {
        return first(dataSource, sql, parameters, rows -> rows.getLong(1));
    }

    /** The first column of the first row the query answers, as {@code type}. */
    public static <T> T single(AgroalDataSource dataSource, Class<T> type, String sql, Object... parameters) {
        return first(dataSource, sql, parameters, rows -> rows.getObject(1, type));
    }

    private interface Column<T> {
        T of(ResultSet rows) throws SQLException;
    }

    private static <T> T first(AgroalDataSource dataSource, String sql, Object[] parameters, Column<T> column) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return column.of(rows);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void execute(AgroalDataSource dataSource, String sql, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            statement.execute();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
