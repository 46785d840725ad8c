package io.fsp.cli.agent;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a command is, as the launcher's process sees it: the agent runs it as that process would. {@code key} names the
 * agent the launcher meant ({@link AgentAddress#key}); {@code cwd} resolves relative paths; {@code environment} holds
 * only the variables a command reads ({@link #PASSED}); {@code terminal}: standard input and output are a terminal
 * (progress line, password prompt) (a managed transfer is asked for by {@code --detach} in {@code argv});
 * {@code startedMillis}: when the launcher started (what the command's timings count from); {@code pid}: the
 * launcher's (a destination lock names it: a signal to it cancels the command).
 */
public record Request(String key, String cwd, boolean terminal, long startedMillis, long pid,
                      List<String> argv, Map<String, String> environment) {
    public static final int VERSION = 1;
    static final int MAX_ARGS = 4096;
    static final int MAX_VARIABLES = 256;

    /** Whether a command reads the variable {@code name}: FSP's own, the home and configuration directories, the terminal. */
    public static boolean passed(String name) {
        return name.startsWith("FSP_") || name.equals("HOME") || name.equals("XDG_CONFIG_HOME")
                || name.equals("COLUMNS") || name.equals("TERM") || name.equals("NO_COLOR");
    }

    public byte[] encode() throws IOException {
        Frames.Payload p = new Frames.Payload().putInt(VERSION).putString(key).putString(cwd)
                .putInt(terminal ? 1 : 0).putInt((int) (startedMillis >>> 32))
                .putInt((int) startedMillis).putInt((int) pid).putInt(argv.size());
        for (String a : argv) {
            p.putString(a);
        }
        p.putInt(environment.size());
        for (Map.Entry<String, String> e : environment.entrySet()) {
            p.putString(e.getKey()).putString(e.getValue());
        }
        return p.toBytes();
    }

    /** The request in a HELLO frame; an IOException says what is malformed. */
    public static Request decode(byte[] payload) throws IOException {
        Frames.Reader r = new Frames.Reader(payload);
        int version = r.getInt();
        if (version != VERSION) {
            throw new IOException("launcher speaks version " + version + " (this agent: " + VERSION + ")");
        }
        String key = r.getString();
        String cwd = r.getString();
        int flags = r.getInt();
        long started = ((long) r.getInt() << 32) | (r.getInt() & 0xffffffffL);
        long pid = r.getInt() & 0xffffffffL;
        int argc = r.getCount(MAX_ARGS, "arguments");
        List<String> argv = new ArrayList<>(argc);
        for (int i = 0; i < argc; i++) {
            argv.add(r.getString());
        }
        int envc = r.getCount(MAX_VARIABLES, "variables");
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; i < envc; i++) {
            String name = r.getString();
            String value = r.getString();
            if (!passed(name)) {
                throw new IOException("variable " + name + " is not one a command reads");
            }
            env.put(name, value);
        }
        r.end();
        if (!cwd.startsWith("/")) {
            throw new IOException("working directory '" + cwd + "' is not absolute");
        }
        return new Request(key, cwd, (flags & 1) != 0, started, pid, List.copyOf(argv), env);
    }
}
