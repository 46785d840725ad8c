package io.fsp.client.write;

import java.io.IOException;

/**
 * The destination cannot take what is fetched as {@code -o} names it (a directory where the file would go, a file
 * where a tree would, another run writing there). Nothing was written; running the same command again does not help
 * until the destination changes.
 */
public class DestinationException extends IOException {
    public DestinationException(String message) {
        super(message);
    }
}
