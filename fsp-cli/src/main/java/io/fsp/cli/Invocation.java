package io.fsp.cli;

import java.io.Console;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The world one {@code fsp} command runs in: its working directory, the environment it reads, and its terminal (the
 * progress line and the password prompt). A new process has its own ({@link #ofThisProcess}); in the agent each
 * command has its launcher's, set for the command's thread and the threads it starts ({@link #runAs}).
 *
 * @param cwd where relative paths start
 * @param environment the variables the command reads
 * @param terminal standard input and output are a terminal
 * @param prompt asks on the terminal without echo (empty without one)
 * @param startedMillis when the user's command started: its process's start, or its launcher's
 * @param pid the process that stands for the command: its own, or its launcher (a signal to it cancels the command)
 * @param watch told where the command's progress can be read ({@code fsp status} of a managed transfer)
 */
record Invocation(Path cwd, Map<String, String> environment, boolean terminal, Optional<PasswordOption.Prompt> prompt,
                  long startedMillis, long pid, Watch watch) {
    /** Where a running command's bytes done and to do, and its blocks verified and recovered, can be read. */
    interface Watch {
        Watch NONE = (done, total) -> { };

        void progress(java.util.function.LongSupplier done, java.util.function.LongSupplier total);

        /** Blocks on disk and blocks recovered from a damaged copy (a command that fetches blocks). */
        default void blocks(java.util.function.LongSupplier verified, java.util.function.LongSupplier recovered) {
        }
    }

    private static final InheritableThreadLocal<Invocation> CURRENT = new InheritableThreadLocal<>();

    static Invocation ofThisProcess() {
        Console console = System.console();
        return new Invocation(Path.of("").toAbsolutePath(), System.getenv(), console != null,
                console == null ? Optional.empty() : Optional.of(text -> console.readPassword("%s", text)),
                ProcessHandle.current().info().startInstant().map(java.time.Instant::toEpochMilli)
                        .orElseGet(System::currentTimeMillis), ProcessHandle.current().pid(), Watch.NONE);
    }

    /** This thread's command's world: the launcher's in the agent, else this process's. */
    static Invocation current() {
        Invocation set = CURRENT.get();
        return set != null ? set : ofThisProcess();
    }

    /** Runs {@code body} as a command of {@code invocation}'s. */
    static <T> T runAs(Invocation invocation, java.util.concurrent.Callable<T> body) throws Exception {
        CURRENT.set(invocation);
        try {
            return body.call();
        } finally {
            CURRENT.remove();
        }
    }

    /** The variable {@code name}, or null. */
    String env(String name) {
        return environment.get(name);
    }

    /** {@code path} from the command's working directory. */
    Path resolve(String path) {
        return cwd.resolve(path);
    }

    /** Where this user's agents and managed transfers live ({@link io.fsp.cli.agent.AgentAddress}). */
    Path agentDirectory() {
        return io.fsp.cli.agent.AgentAddress.directoryOf(environment);
    }

    /** $HOME, else the JVM's idea of it. */
    Path home() {
        String home = environment.get("HOME");
        return Path.of(home != null && home.startsWith("/") ? home : System.getProperty("user.home"));
    }
}
