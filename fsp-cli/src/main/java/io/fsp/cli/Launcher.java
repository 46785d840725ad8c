package io.fsp.cli;

import io.fsp.cli.agent.AgentAddress;
import io.fsp.cli.agent.AgentClient;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code fsp}'s entry: runs the command in this user's agent ({@link io.fsp.cli.agent}), starting one if none
 * answers, or in this process when the agent is off ({@code --no-agent}, {@code FSP_AGENT=off}, {@code agent = off} in
 * the client configuration) or leaves the command to it. Until it runs a command in-process it loads nothing but
 * {@code java.base} and the agent's wire, so that a warm command costs little more than the JVM's start.
 */
public final class Launcher {
    static final String NO_AGENT = "--no-agent";
    static final String DETACH = "--detach";
    /** How long an agent with no command to run stays (client.conf's agent-idle, $FSP_AGENT_IDLE). */
    static final String DEFAULT_IDLE = "5m";
    private static final Path CWD = Path.of(System.getProperty("user.dir"));

    private Launcher() {
    }

    public static void main(String[] args) {
        Map<String, String> env = System.getenv();
        List<String> argv = new ArrayList<>(Arrays.asList(args));
        boolean wanted = !argv.remove(NO_AGENT) && agentWanted(env, argv);
        if (argv.size() == 2 && argv.get(0).equals("agent") && !argv.get(1).startsWith("-")) {
            Runtime.getRuntime().halt(agent(argv.get(1), env));
        }
        if (wanted) {
            int code = viaAgent(env, argv);
            if (code != AgentClient.DECLINED) {
                Runtime.getRuntime().halt(code);
            }
        }
        inProcess(env, argv);
    }

    /**
     * Runs the command in a process of its own: this one if its class path holds the commands, else (bin/launch's thin
     * launcher) a JVM started as bin/launch starts one for FSP_AGENT=off, whose exit code this process ends with.
     */
    private static void inProcess(Map<String, String> env, List<String> argv) {
        String classPath = env.get("FSP_AGENT_CLASSPATH");
        if (classPath == null) {
            FspCli.main(argv.toArray(new String[0]));
            return;
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options(env, "FSP_INPROCESS_JVM"));
        command.addAll(List.of("-cp", classPath, "io.fsp.cli.FspCli"));
        command.addAll(argv);
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        pb.environment().put("FSP_AGENT", "off");
        try {
            Process p = pb.start();
            // Ctrl-C reaches both (one process group): wait for the command to say how it ended.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    p.waitFor();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            Runtime.getRuntime().halt(p.waitFor());
        } catch (IOException | InterruptedException e) {
            System.err.println("fsp: could not start " + command.get(0) + ": " + e.getMessage());
            Runtime.getRuntime().halt(ExitCodes.INTERNAL);
        }
    }

    /** The command's exit code from the agent, or DECLINED to run it here. */
    private static int viaAgent(Map<String, String> env, List<String> argv) {
        AgentAddress address;
        SocketChannel ch;
        try {
            address = AgentAddress.ofThisProcess(env);
            ch = AgentClient.connectOrStart(address, jvmOptions(env), setting(env, argv, CWD, "agent-idle", DEFAULT_IDLE));
        } catch (IOException | RuntimeException e) {
            System.err.println("fsp: no agent (" + e.getMessage() + "); running in this process");
            return AgentClient.DECLINED;
        }
        String[] declined = new String[1];
        try (ch) {
            return AgentClient.run(ch, AgentClient.request(address.key(), argv, env), declined);
        } catch (IOException e) {
            System.err.println("fsp: the agent ended before the command did (" + e.getMessage() + "; see "
                    + address.log() + "); " + Rerun.HINT);
            return ExitCodes.FAILURE;
        }
    }

    /**
     * {@code fsp agent start|status|stop}: start prints the agent's status once it answers; status exits 1 when none
     * runs; stop exits 0 also when none was running. Whether commands use an agent does not matter here.
     */
    static int agent(String verb, Map<String, String> env) {
        if (!List.of("start", "status", "stop").contains(verb)) {
            System.err.println("fsp agent: '" + verb + "' (expected: start, status or stop)");
            return ExitCodes.USAGE;
        }
        try {
            AgentAddress address = AgentAddress.ofThisProcess(env);
            SocketChannel ch = verb.equals("start")
                    ? AgentClient.connectOrStart(address, jvmOptions(env), setting(env, List.of(), CWD, "agent-idle", DEFAULT_IDLE))
                    : AgentClient.connect(address);
            if (ch == null) {
                System.out.println("fsp agent: none running for this user, build and namespace (" + address.socket() + ")");
                return verb.equals("status") ? ExitCodes.FAILURE : ExitCodes.OK;
            }
            try (ch) {
                return AgentClient.run(ch, AgentClient.request(address.key(), List.of("agent", verb), env),
                        new String[1]);
            }
        } catch (IOException e) {
            System.err.println("fsp agent " + verb + ": " + e.getMessage());
            return ExitCodes.FAILURE;
        }
    }

    /** The agent's JVM options: bin/launch's, one per line in $FSP_AGENT_JVM. */
    static List<String> jvmOptions(Map<String, String> env) {
        return options(env, "FSP_AGENT_JVM");
    }

    private static List<String> options(Map<String, String> env, String variable) {
        List<String> options = new ArrayList<>();
        for (String o : env.getOrDefault(variable, "").split("\n")) {
            if (!o.isBlank()) {
                options.add(o);
            }
        }
        return options;
    }

    /** Whether commands go to the agent: not with FSP_AGENT=off, nor with agent = off in the configuration. */
    static boolean agentWanted(Map<String, String> env, List<String> argv) {
        return agentWanted(env, argv, CWD);
    }

    /** {@link #agentWanted(Map, List)} for a command whose working directory is {@code cwd} (the agent asks it). */
    static boolean agentWanted(Map<String, String> env, List<String> argv, Path cwd) {
        return !off(env.getOrDefault("FSP_AGENT", setting(env, argv, cwd, "agent", "on")));
    }

    private static boolean off(String value) {
        String v = value.trim().toLowerCase(java.util.Locale.ROOT);
        return v.equals("off") || v.equals("false") || v.equals("no") || v.equals("0");
    }

    /**
     * {@code key} from the command's client configuration (--config FILE, $FSP_CONFIG, or the user's file, as
     * {@link ClientConfigOption} finds it), else {@code fallback}. Read here with no parser of the configuration's own,
     * whose classes a warm command would pay for; the command itself reads the file again and rejects what is wrong.
     */
    static String setting(Map<String, String> env, List<String> argv, Path cwd, String key, String fallback) {
        if (key.equals("agent-idle") && env.get("FSP_AGENT_IDLE") != null) {
            return env.get("FSP_AGENT_IDLE");
        }
        Path file = configFile(env, argv, cwd);
        if (file == null || !Files.isRegularFile(file)) {
            return fallback;
        }
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                int eq = line.indexOf('=');
                if (!line.trim().startsWith("#") && eq > 0 && line.substring(0, eq).trim().equals(key)) {
                    return line.substring(eq + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // the command reads it again and says what is wrong
        }
        return fallback;
    }

    private static Path configFile(Map<String, String> env, List<String> argv, Path cwd) {
        String named = env.get(ClientConfigOption.ENVIRONMENT);
        for (int i = 0; i < argv.size(); i++) {
            if (argv.get(i).equals("--config") && i + 1 < argv.size()) {
                named = argv.get(i + 1);
            } else if (argv.get(i).startsWith("--config=")) {
                named = argv.get(i).substring("--config=".length());
            }
        }
        if (named != null && !named.isEmpty()) {
            return named.equals(ClientConfigOption.NONE) ? null : cwd.resolve(named);
        }
        String xdg = env.get("XDG_CONFIG_HOME");
        String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        Path dir = xdg != null && xdg.startsWith("/") ? Path.of(xdg) : Path.of(home, ".config");
        return dir.resolve("fsp").resolve("client.conf");
    }
}
