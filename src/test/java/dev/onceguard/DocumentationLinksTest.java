package dev.onceguard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link and image in README.md, docs/ and the other Markdown files of the repository points at a file of the repository, and every
 * {@code #anchor} into a Markdown file at one of its headings (as GitHub names them), so the docs can be read on
 * any clone without a dead end.
 */
class DocumentationLinksTest {

    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");
    /** Build output and tool folders: their Markdown is not the project's. */
    private static final Set<String> IGNORED = Set.of("target", ".git", ".mvn", "node_modules");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    @Test
    void everyRelativeLinkOfTheReadmeTheDocsAndTheOtherMarkdownResolvesInsideTheRepository() throws IOException {
        Path root = Path.of("").toAbsolutePath();

        assertThat(brokenLinks(root)).isEmpty();
    }

    @Test
    void aMissingFileAMissingHeadingAndALinkOutOfTheRepositoryAreReported(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("README.md"), """
                # Title
                [ok](docs/api.md#the-api) [ok too](#title) [gone](docs/missing.md) [no heading](docs/api.md#nowhere)
                [outside](../outside-the-repository/notes.md) ![picture](ui/none.png) [web](https://example.com/x)
                ```sh
                [in a code block](not-checked.md)
                ```
                `[in code](not-checked-either.md)`
                """);
        Files.createDirectories(root.resolve("bench"));
        Files.writeString(root.resolve("bench/README.md"), "[results](../docs/api.md#the-api) [old](../docs/results.md)\n");
        Files.createDirectories(root.resolve("target"));
        Files.writeString(root.resolve("target/copy.md"), "[build output is not checked](nowhere.md)\n");
        Files.writeString(root.resolve("docs/api.md"), """
                # The API
                [back](../README.md#title) [self](#the-api) [dup](#the-api-1)
                ## The API
                """);

        assertThat(brokenLinks(root)).containsExactlyInAnyOrder(
                "README.md -> docs/missing.md",
                "README.md -> docs/api.md#nowhere",
                "README.md -> ../outside-the-repository/notes.md",
                "README.md -> ui/none.png",
                "bench/README.md -> ../docs/results.md");
    }

    @Test
    void headingsGetGitHubsAnchors() {
        assertThat(anchors(List.of(
                "## Alerts and runbooks",
                "#### \"I was charged twice\": the answer in under a minute",
                "### `Idempotency-Key`",
                "## Kubernetes (Helm chart)",
                "## Kubernetes (Helm chart)",
                "## [Linked](other.md) heading")))
                .containsExactlyInAnyOrder("alerts-and-runbooks", "i-was-charged-twice-the-answer-in-under-a-minute",
                        "idempotency-key", "kubernetes-helm-chart", "kubernetes-helm-chart-1", "linked-heading");
    }

    /** "file -> target" for each relative link of the repository's Markdown whose target file or heading does not exist. */
    private static List<String> brokenLinks(Path root) throws IOException {
        List<Path> pages;
        try (Stream<Path> files = Files.walk(root)) {
            pages = files.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> root.relativize(p).getNameCount() == 1 || !IGNORED.contains(root.relativize(p).getName(0).toString()))
                    .sorted().toList();
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            for (String target : links(Files.readAllLines(page))) {
                if (SCHEME.matcher(target).find()) {
                    continue;
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved = (file.isEmpty() ? page : page.getParent().resolve(file)).normalize();
                boolean exists = resolved.startsWith(root) && Files.exists(resolved);
                if (exists && anchor != null && resolved.toString().endsWith(".md")) {
                    exists = anchors(Files.readAllLines(resolved)).contains(anchor);
                }
                if (!exists) {
                    broken.add(root.relativize(page) + " -> " + target);
                }
            }
        }
        return broken;
    }

    /** The targets of the inline links and images outside code. */
    private static List<String> links(List<String> lines) {
        List<String> targets = new ArrayList<>();
        for (String line : prose(lines)) {
            Matcher link = INLINE_LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
            while (link.find()) {
                targets.add(link.group(1));
            }
        }
        return targets;
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
    private static Set<String> anchors(List<String> lines) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(lines)) {
            Matcher heading = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$").matcher(line);
            if (!heading.matches()) {
                continue;
            }
            String text = heading.group(1).replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
            String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int repeats = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(repeats == 0 ? slug : slug + "-" + repeats);
        }
        return anchors;
    }

    /** The lines outside fenced code blocks. */
    private static List<String> prose(List<String> lines) {
        List<String> prose = new ArrayList<>();
        String fence = null;
        for (String line : lines) {
            String trimmed = line.stripLeading();
            if (fence == null && (trimmed.startsWith("```") || trimmed.startsWith("~~~"))) {
                fence = trimmed.substring(0, 3);
            } else if (fence != null && trimmed.startsWith(fence)) {
                fence = null;
            } else if (fence == null) {
                prose.add(line);
            }
        }
        return prose;
    }
}
