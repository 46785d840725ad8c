package io.fsp.server.ftp;

import io.fsp.ftp.ReplyCode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The registry of verbs: each command under its verb and its aliases ({@code XPWD} is {@code PWD}, RFC 775),
 * the access check every dispatch goes through, and the FEAT and HELP texts built from what is registered.
 * Extensions register more commands here, and may guard uploads ({@link UploadGuard}); their FEAT lines appear when
 * their {@code features} say so. The standard set is {@code ftp.command.StandardCommands}.
 */
public final class FtpCommands {
    private final Map<String, FtpCommand> byVerb = new LinkedHashMap<>();
    private final List<FtpCommand> commands = new ArrayList<>();
    private UploadGuard uploadGuard = UploadGuard.NONE;

    /** Registers {@code command} under its verb and {@code aliases}. */
    public FtpCommands register(FtpCommand command, String... aliases) {
        put(command.verb(), command);
        for (String alias : aliases) {
            put(alias, command);
        }
        commands.add(command);
        return this;
    }

    private void put(String verb, FtpCommand command) {
        if (byVerb.putIfAbsent(verb.toUpperCase(Locale.ROOT), command) != null) {
            throw new IllegalArgumentException("verb " + verb + ": registered twice (expected: once)");
        }
    }

    /** Sets the check every upload passes before it writes a file (one extension's; none by default). */
    public FtpCommands guardUploads(UploadGuard guard) {
        this.uploadGuard = guard;
        return this;
    }

    public UploadGuard uploadGuard() {
        return uploadGuard;
    }

    public Optional<FtpCommand> find(String verb) {
        return Optional.ofNullable(byVerb.get(verb.toUpperCase(Locale.ROOT)));
    }

    /** The reply refusing {@code command} in the session's state, or {@code null} if it may run. */
    public FtpReply checkAccess(FtpCommand command, FtpSession session) {
        if (command.requiresTls() && !session.isSecure()) {
            return new FtpReply(ReplyCode.SECURITY_POLICY_REFUSED, command.verb() + " requires TLS: send AUTH TLS first");
        }
        return switch (command.access()) {
            case ANY -> null;
            case AFTER_USER -> session.isLoggedIn() ? Replies.badSequence("Already logged in")
                    : session.pendingUser().isEmpty() ? Replies.badSequence("Login with USER first") : null;
            case LOGGED_IN -> session.isLoggedIn() ? null : Replies.notLoggedIn();
        };
    }

    /** RFC 2389 §3.2: the FEAT reply; commands that require TLS appear only on a TLS control connection. */
    public FtpReply features(FtpSession session) {
        TreeSet<String> lines = new TreeSet<>();
        for (FtpCommand c : commands) {
            if (c.requiresTls() && !session.isSecure()) {
                continue; // advertised only where it can be used
            }
            lines.addAll(c.features(session));
        }
        List<String> reply = new ArrayList<>();
        reply.add("Features:");
        lines.forEach(l -> reply.add(" " + l));
        reply.add("End");
        return new FtpReply(ReplyCode.SYSTEM_STATUS, reply);
    }

    /** RFC 959 §4.1.3 HELP: every verb, eight to a line. */
    public FtpReply help() {
        List<String> reply = new ArrayList<>();
        reply.add("The following commands are recognized:");
        List<String> verbs = new ArrayList<>(new TreeSet<>(byVerb.keySet()));
        for (int i = 0; i < verbs.size(); i += 8) {
            StringBuilder sb = new StringBuilder();
            for (String v : verbs.subList(i, Math.min(i + 8, verbs.size()))) {
                sb.append(' ').append(String.format(Locale.ROOT, "%-5s", v));
            }
            reply.add(sb.toString());
        }
        reply.add("Help OK");
        return new FtpReply(ReplyCode.HELP, reply);
    }

    /** HELP VERB: the verb's syntax. */
    public FtpReply help(String verb) {
        return find(verb)
                .map(c -> new FtpReply(ReplyCode.HELP, "Syntax: " + c.syntax()))
                .orElseGet(() -> Replies.notImplemented(verb.toUpperCase(Locale.ROOT)));
    }
}
