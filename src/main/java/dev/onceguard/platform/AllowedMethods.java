package dev.onceguard.platform;

import io.quarkus.arc.Arc;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.inject.Singleton;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The HTTP methods each resource path answers, read once from the resource classes, for the {@code Allow} header of a
 * 405 (RESTEasy Reactive refuses the method without saying which ones the path takes). Reading their annotations is
 * reflection, so every resource class is registered for it (ArchitectureTest keeps it so), or a native executable
 * would see no methods at all.
 */
@Singleton
@Startup
public class AllowedMethods {

    private record Route(Pattern path, String method) {
    }

    private final List<Route> routes = new ArrayList<>();

    AllowedMethods() {
        for (Bean<?> bean : Arc.container().beanManager().getBeans(Object.class, Any.Literal.INSTANCE)) {
            Class<?> type = bean.getBeanClass();
            Path base = type.getAnnotation(Path.class);
            if (base == null) {
                continue;
            }
            for (Method method : type.getMethods()) {
                String verb = httpMethod(method);
                if (verb != null) {
                    Path sub = method.getAnnotation(Path.class);
                    routes.add(new Route(template(base.value() + "/" + (sub == null ? "" : sub.value())), verb));
                }
            }
        }
    }

    /** The methods {@code path} answers, comma-separated as {@code Allow} lists them. */
    public String allowFor(String path) {
        Set<String> allowed = routes.stream().filter(route -> route.path().matcher(path).matches())
                .map(Route::method).collect(Collectors.toCollection(TreeSet::new));
        if (allowed.contains("GET")) {
            allowed.add("HEAD");
        }
        allowed.add("OPTIONS");
        return String.join(", ", allowed);
    }

    private static Pattern template(String template) {
        String path = ("/" + template).replaceAll("/+", "/");
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        StringBuilder regex = new StringBuilder();
        for (String part : path.split("(?=\\{)|(?<=})")) {
            regex.append(part.startsWith("{") ? "[^/]+" : Pattern.quote(part));
        }
        return Pattern.compile(regex + "/?");
    }

    /** The HTTP method a resource method answers ({@code @GET}, {@code @POST}, …), or null for a sub-resource locator. */
    public static String httpMethod(Method method) {
        return Arrays.stream(method.getAnnotations())
                .map(annotation -> annotation.annotationType().getAnnotation(HttpMethod.class))
                .filter(Objects::nonNull).map(HttpMethod::value).findFirst().orElse(null);
    }
}
