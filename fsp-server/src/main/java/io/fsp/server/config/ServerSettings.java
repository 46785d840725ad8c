package io.fsp.server.config;

import io.fsp.config.Setting;
import io.fsp.config.Settings;
import io.fsp.server.stripe.PlanBudget;
import java.util.List;

/**
 * Every setting of {@code fsp-server}, declared once: its key in the configuration file and as the option
 * {@code --key}, the label of its value, its default, its help line and its bounds. The loader, {@code fsp-server}'s
 * options and help, and the check of {@code conf/server.conf.example} read these; {@link ServerConfig} holds the
 * values, typed. In the order of {@code fsp-server --help}; the settings only the file has come last.
 */
public final class ServerSettings {

    public static final Settings<ServerConfig> ALL = new Settings<>(ServerConfig.class, List.of(
            Setting.of("listen", "HOST:PORT", "127.0.0.1:2121", "Address to listen on; repeatable; port 0 picks a free"
                    + " port; IPv6 as [::1]:0 (default: {default})."),
            Setting.of("root", "DIR", null, "Directory users see as \"/\" (for --user, --anonymous, and users without"
                    + " a ROOT)."),
            Setting.of("user", "NAME[:PASSWORD]", null, "A read-write user; repeatable. Without :PASSWORD the password"
                    + " comes from $FSP_PASSWORD_NAME (NAME in capitals, other characters as _) or is asked on the"
                    + " terminal, so that it does not show in ps. For real use prefer --users-file with hashed passwords."),
            Setting.of("users-file", "FILE", null, "Users file: NAME ACCESS ARGON2ID-HASH [ROOT] per line (see"
                    + " conf/users.example)."),
            Setting.flag("allow-plain-login", false, "Accept passwords on a control connection without TLS (default:"
                    + " TLS required)."),
            Setting.flag("anonymous", false, "Allow read-only anonymous login (USER anonymous or ftp) to --root."),
            Setting.of("passive-ports", "LOW-HIGH", null, "Ports for passive data connections (default: free ports"
                    + " above the system's ephemeral range)."),
            Setting.of("announce-address", "ADDR", null, "IPv4 address PASV replies announce, e.g. behind NAT"
                    + " (default: the control connection's local address)."),
            Setting.of("state-dir", "DIR", null, "Where the generated TLS certificate and key are kept (default:"
                    + " ~/.fsp/server)."),
            Setting.of("certificate", "PEM", null, "TLS certificate chain (PEM); with --private-key, instead of the"
                    + " generated one."),
            Setting.of("private-key", "PEM", null, "TLS private key (PEM, unencrypted)."),
            Setting.flag("require-tls-session-reuse", false, "Refuse protected data connections that do not resume the"
                    + " control connection's TLS session (default: off)."),
            Setting.of("socket-buffer", "SIZE", "0", "Fix both socket buffers of data and relay connections at SIZE,"
                    + " e.g. 8M, turning off the kernel's autotuning (default: {default}, autotuning; see"
                    + " conf/server.conf.example)."),
            Setting.of("digest-cache", "SIZE", "32M", "Keep the plaintext digests of large files' blocks between"
                    + " transfers, up to SIZE, so that a file served again is not hashed again; 0 keeps none (default:"
                    + " {default})."),
            Setting.of("max-retain", "DURATION", "30d", "The longest retention an evacuation (FSPO retain) may ask"
                    + " relays for, e.g. 7d (default: {default})."),
            Setting.of("retain-user", "NAME=DURATION", null, "User NAME may evacuate (FSPO retain) for at most"
                    + " DURATION, within --max-retain, e.g. alice=7d; repeatable (default: nobody; never anonymous)."),
            Setting.of("metrics", "HOST:PORT", null, "Serve Prometheus metrics at http://HOST:PORT/metrics (plain HTTP,"
                    + " no authentication: bind it where only the scraper reaches, e.g. 127.0.0.1:9463; default:"
                    + " none)."),
            Setting.of("idle-timeout", "DURATION", "5m", "Close control connections idle this long, e.g. 300s"
                    + " (default: {default})."),
            Setting.of("login-grace-time", "DURATION", "60s", "Close a control connection not logged in this long"
                    + " after it opened, e.g. 30s (default: {default})."),
            Setting.of("data-timeout", "DURATION", "300s", "Abort a transfer whose data connection moves no byte this"
                    + " long, with 426, e.g. 60s (default: {default})."),
            Setting.of("max-connections", "N", "256", "Control connections in total (default: {default}).")
                    .range(1, 1_000_000),
            Setting.of("max-connections-per-address", "N", "32", "Control connections per client address (default:"
                    + " {default}).").range(1, 1_000_000),
            Setting.of("login-failure-delay", "DURATION", "1s", "Delay after a failed login, doubling per failure up to"
                    + " 16x (default: {default})."),
            Setting.of("relay", "HOST:PORT=FINGERPRINT", null, "A relay for striped transfers, pinned by the certificate"
                    + " fingerprint it prints at start or with 'fsp-relay fingerprint'; repeatable."),
            Setting.of("collect-relay", "IP:PORT[=FINGERPRINT]", null, "A relay FCOL may collect from beside the"
                    + " --relay ones (without FINGERPRINT: with a certificate of --relay or --trust-relay); repeatable."),
            Setting.flag("relay-blocks-over-tls", false, "Push blocks to relays over TLS too, so that frame headers"
                    + " are hidden (default: over a clear link beside each relay's TLS connection; blocks are sealed"
                    + " either way)."),
            Setting.flag("fsp-without-tls", false, "Allow the FSP extension on a control connection without TLS"
                    + " (default: TLS required; the transfer keys travel on it)."),
            Setting.of("meridian", "HOST:PORT", null, "UDP address of the server's Meridian endpoint, for selecting"
                    + " relays by RTT (default with --meridian-entry: the first --listen host, any port; a concrete IP)."),
            Setting.of("meridian-entry", "HOST:PORT", null, "Meridian node (e.g. a relay's) through which relay"
                    + " selections enter the overlay."),
            Setting.of("trust-relay", "FINGERPRINT", null, "A relay fingerprint to use when the overlay finds it,"
                    + " beside those of --relay; repeatable."),
            Setting.flag("trust-overlay-relays", false, "Use any relay the overlay finds, pinned to the fingerprint it"
                    + " claims (default: only trusted ones)."),
            // Only in the file (conf/server.conf.example says more of each).
            Setting.of("max-line-length", "BYTES", "8192", "Longest accepted command line, without CRLF.")
                    .range(64, 1 << 20).fileOnly(),
            Setting.of("data-connect-timeout", "DURATION", "30s", "How long a transfer waits for its data connection.")
                    .fileOnly(),
            Setting.flag("fsync-uploads", true, "Answer 226 to an upload only once it is on stable storage.")
                    .fileOnly(),
            Setting.of("max-login-failures", "N", "3", "Failed logins on one connection before it is closed.")
                    .range(1, 1000).fileOnly(),
            Setting.of("io-threads", "N", "0", "Event-loop threads; 0: twice the number of CPUs.").range(0, 1024)
                    .fileOnly(),
            Setting.of("blocking-threads", "N", "16", "Threads for file work.").range(1, 1024).fileOnly(),
            Setting.of("login-threads", "N", "4", "Threads for password checks.").range(1, 256).fileOnly(),
            Setting.of("control-write-buffer", "BYTES", "65536", "Reply bytes a control connection may hold unsent.")
                    .range(1024, 16 << 20).fileOnly(),
            Setting.of("checksum-rate", "BYTES", "134217728", "Bytes per second checksum commands of one connection"
                    + " read on average.").range(1, Long.MAX_VALUE).fileOnly(),
            Setting.of("checksum-burst", "BYTES", "17179869184", "Bytes checksum commands of one connection read in"
                    + " a burst.").range(1, Long.MAX_VALUE).fileOnly(),
            Setting.of("collect-timeout", "DURATION", "6h", "The longest one FCOL collection may run.").fileOnly(),
            Setting.of("relay-selection-timeout", "DURATION", "5s", "How long a relay selection may take before the"
                    + " static relay list is used.").fileOnly(),
            Setting.of("max-blocks-per-transfer", "N", "1048576", "The most blocks one striped transfer may have.")
                    .range(1, Integer.MAX_VALUE).fileOnly(),
            Setting.of("max-planned", "N", String.valueOf(PlanBudget.defaultLimit()), "The most files and"
                    + " directories the plans of all striped transfers may hold at once.").range(1, Long.MAX_VALUE)
                    .fileOnly()));

    private ServerSettings() {
    }
}
