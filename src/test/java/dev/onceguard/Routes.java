package dev.onceguard;

import dev.onceguard.platform.AllowedMethods;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Every HTTP route the service's JAX-RS resources declare, read from the compiled classes, so that a test covering
 * "every endpoint" also covers the next one somebody adds.
 */
public final class Routes {

    /**
     * One resource method: its HTTP method, its path template ({@code /api/orders/{orderId}/payments}) and the query
     * parameters it reads.
     */
    public record Route(String method, String template, List<String> queryParameters) {

        /** The path with every template parameter replaced by {@code value}, used as it is (already encoded). */
        public String path(String value) {
            return template.replaceAll("\\{[^}]+}", java.util.regex.Matcher.quoteReplacement(value));
        }

        public boolean hasPathParameter() {
            return template.contains("{");
        }

        @Override
        public String toString() {
            return method + " " + template;
        }
    }

    private static final java.nio.file.Path CLASSES = Paths.get("target", "classes");

    private Routes() {
    }

    /** The routes whose template is {@code prefix} or lies under it, in a stable order. */
    public static List<Route> under(String prefix) {
        return all().stream()
                .filter(route -> route.template().equals(prefix) || route.template().startsWith(prefix + "/"))
                .toList();
    }

    public static List<Route> all() {
        List<Route> routes = new ArrayList<>();
        for (Class<?> type : resourceClasses()) {
            String base = type.getAnnotation(Path.class).value();
            for (Method method : type.getDeclaredMethods()) {
                String verb = AllowedMethods.httpMethod(method);
                if (verb != null) {
                    Path sub = method.getAnnotation(Path.class);
                    routes.add(new Route(verb, join(base, sub == null ? "" : sub.value()), queryParameters(method)));
                }
            }
        }
        routes.sort(Comparator.comparing(Route::template).thenComparing(Route::method));
        if (routes.isEmpty()) {
            throw new IllegalStateException("no JAX-RS resources found under " + CLASSES.toAbsolutePath());
        }
        return routes;
    }

    private static List<Class<?>> resourceClasses() {
        try (Stream<java.nio.file.Path> files = Files.walk(CLASSES)) {
            return files.map(CLASSES::relativize).map(java.nio.file.Path::toString)
                    .filter(name -> name.endsWith(".class") && !name.contains("$"))
                    .map(name -> name.substring(0, name.length() - ".class".length()).replace('/', '.'))
                    .map(Routes::load)
                    .filter(type -> type.isAnnotationPresent(Path.class) && !type.isInterface())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, Routes.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> queryParameters(Method method) {
        return Stream.of(method.getParameters())
                .map(parameter -> parameter.getAnnotation(QueryParam.class))
                .filter(java.util.Objects::nonNull)
                .map(QueryParam::value)
                .toList();
    }

    private static String join(String base, String sub) {
        String path = ("/" + base + "/" + sub).replaceAll("/+", "/");
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
