package dev.onceguard.console.browser;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Playwright;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Debian's Chromium at {@code /usr/bin/chromium}, driven headless by Playwright. Playwright never downloads a browser
 * here: its driver is told to skip the download, and the launch names the system's executable.
 */
final class SystemChromium {

    static final Path EXECUTABLE = Path.of("/usr/bin/chromium");

    private static final List<String> ARGS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync");

    private static final String SKIPPED = "console browser tests SKIPPED: no Chromium at " + EXECUTABLE
            + "; install it with `apt-get install -y chromium` (.ci/run does) to run them";

    private SystemChromium() {
    }

    static boolean installed() {
        return Files.isExecutable(EXECUTABLE);
    }

    /** Says on stderr, in a banner no one scrolls past, why the browser tests are skipped and how to run them. */
    static void printSkipBanner() {
        System.err.println("""

                ##########################################################################
                #  SKIPPED: the console's browser tests (ui/browser-tests)               #
                #  They drive Debian's Chromium at /usr/bin/chromium, which is missing.  #
                #  Install it, then run the tests again:                                 #
                #                                                                        #
                #      apt-get install -y chromium                                       #
                #                                                                        #
                #  (Playwright never downloads a browser of its own here.)               #
                ##########################################################################
                """);
    }

    /** Skips the calling test, with the reason in the report, when the browser is not installed; never fails it. */
    static void assumeInstalled() {
        Assumptions.assumeTrue(installed(), SKIPPED);
    }

    static Playwright playwright() {
        return Playwright.create(new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
    }

    static Browser launch(Playwright playwright) {
        return playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(EXECUTABLE)
                .setHeadless(true)
                .setArgs(ARGS));
    }
}
