package io.fsp.client.control;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * {@code fsp://USER@HOST:PORT/PATH}: a user on an FSP server and a path there. It never holds a password
 * ({@code USER:PASSWORD@} is refused): passwords come from the environment or a file, and a URL is printed and
 * written into manifests.
 *
 * @param host without the brackets of an IPv6 literal
 * @param path the decoded path, as FRET names it
 */
public record FspUrl(String user, String host, int port, String path) {
    public static final int DEFAULT_PORT = 2121;
    private static final String EXPECTED = " (expected: fsp://USER@HOST:PORT/PATH)";

    public FspUrl {
        if (user == null || user.isEmpty() || user.indexOf(':') >= 0 || host == null || host.isEmpty() || path == null
                || !path.startsWith("/") || port < 1 || port > 65535) {
            throw new IllegalArgumentException("url: user '" + user + "', host '" + host + "', port " + port + ", path '"
                    + path + "'" + EXPECTED);
        }
    }

    /** Parses a URL as a user types it; the port defaults to 2121. */
    public static FspUrl parse(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("url: " + url + EXPECTED);
        }
        if (!"fsp".equals(uri.getScheme()) || uri.getHost() == null || uri.getUserInfo() == null || uri.getPath() == null
                || uri.getPath().isEmpty() || uri.getQuery() != null || uri.getFragment() != null) {
            throw new IllegalArgumentException("url: " + url + EXPECTED);
        }
        if (uri.getUserInfo().indexOf(':') >= 0) {
            throw new IllegalArgumentException("url: a password in the URL (expected: fsp://USER@HOST:PORT/PATH; the"
                    + " password comes from $FSP_PASSWORD or --password-file)");
        }
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1) : uri.getHost();
        return new FspUrl(uri.getUserInfo(), host, uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort(), uri.getPath());
    }

    /** {@code USER@HOST:PORT}, as a resume journal names the server. */
    public String server() {
        return user + "@" + host + ":" + port;
    }

    /** The URL, with what a URL cannot hold in its path percent-encoded; {@link #parse} reads it back. */
    @Override
    public String toString() {
        try {
            return new URI("fsp", user, host, port, path, null, null).toASCIIString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("url of " + server() + path, e);
        }
    }
}
