package io.fsp.cli;

import picocli.CommandLine.Option;

/** {@code --block-size}: the FSPO block-size a command asks the server for ({@code fsp get}, evacuate, transfer). */
final class BlockSizeOption {
    @Option(names = "--block-size", paramLabel = "SIZE", description = "Block size, e.g. 4M (server default: 1M, up to 4M for transfers of 128 MiB and more).")
    String value;
}
