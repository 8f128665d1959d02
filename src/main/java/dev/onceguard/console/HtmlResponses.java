package dev.onceguard.console;

import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A console page answered with a status of its own: the operations list's 400 with the form and what was wrong, or
 * the 400/404 page of a {@link ConsoleRequestRejected}.
 */
final class HtmlResponses {

    private HtmlResponses() {
    }

    static Response page(int status, TemplateInstance page) {
        return Response.status(status).type(MediaType.TEXT_HTML_TYPE.withCharset("UTF-8")).entity(page.render()).build();
    }

    /**
     * A keyset-paginated list at {@code path}: the page after the position {@code after}, or, with
     * {@code ?format=csv}, the whole list as CSV named {@code csvName}; {@code filters} as {@link Pager#of} takes them.
     */
    static <T> Response list(String after, String format, String csvName, List<CsvExport.Column<T>> columns,
                             Function<Optional<Cursor>, KeysetPage<T>> pages,
                             BiFunction<KeysetPage<T>, Pager, TemplateInstance> html, String path, String... filters) {
        Optional<Cursor> position = Cursor.parse(after);
        if (CsvExport.wanted(format)) {
            return CsvExport.of(csvName, columns, pages);
        }
        KeysetPage<T> page = pages.apply(position);
        return page(200, html.apply(page, Pager.of(path, position.isPresent(), page.next(), filters)));
    }
}
