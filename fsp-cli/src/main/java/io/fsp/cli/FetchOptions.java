package io.fsp.cli;

import picocli.CommandLine.Option;

/**
 * How a command that fetches blocks from relays ({@code fsp get}, {@code fsp collect}) uses each relay. Both are keys
 * of {@link ClientSettings}, read through {@link ClientConfigOption} over the client's configuration file; the fields
 * here declare the syntax and the help.
 */
final class FetchOptions {
    @Option(names = "--streams", paramLabel = "N", description = "Parallel fetches per relay, 1..64 (default: 4).")
    String streams;

    @Option(names = "--relay-timeout", paramLabel = "SECONDS",
            description = "A relay silent this long for one block loses it to the next source; seconds, or a duration"
                    + " such as 1500ms (default: 10).")
    String relayTimeout;
}
