package io.fsp.server;

import io.fsp.config.ConfigSource;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.config.ServerSettings;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Starts in-process servers on loopback for tests: user alice/secret, read-write, on {@code root}. */
final class TestServers {
    private TestServers() {
    }

    static FspServer start(Path root, Path stateDir, Map<String, List<String>> extra) throws Exception {
        Map<String, List<String>> settings = new HashMap<>();
        settings.put("listen", List.of("127.0.0.1:0", "[::1]:0"));
        settings.put("root", List.of(root.toString()));
        settings.put("user", List.of("alice:secret"));
        settings.put("state-dir", List.of(stateDir.toString()));
        settings.put("login-failure-delay", List.of("50ms"));
        settings.put("blocking-threads", List.of("4"));
        settings.put("io-threads", List.of("2"));
        settings.putAll(extra);
        return FspServer.start(ServerSettings.ALL.load(ConfigSource.of("test", settings)));
    }

    /** The server's metrics as a scrape would read them (Prometheus text). */
    static String metrics(FspServer s) throws java.io.IOException {
        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
        io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create().write(text,
                s.context().metrics().registry().scrape());
        return text.toString(java.nio.charset.StandardCharsets.UTF_8);
    }
}
