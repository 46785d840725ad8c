package io.fsp.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code fsp status [ID]}: this user's managed transfers ({@code --detach}), running, done, failed or interrupted. */
@Command(name = "status", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
        description = {"Lists this user's managed transfers (started with --detach): running ones with bytes, rate and"
                + " ETA; done, failed or cancelled ones with their exit code; interrupted ones (their agent was killed or"
                + " the machine went down) with the command that resumes them from their journal.",
                "With ID: that transfer, and what it printed."},
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {"0:listed", "1:no transfer has this ID"})
final class StatusCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "ID", description = "One transfer (as --detach printed it).")
    String id;

    @Option(names = "--json", description = "One JSON object per transfer and line.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path dir = Transfers.directory(Invocation.current().agentDirectory());
        List<Transfers.Record> records = id == null ? Transfers.records(dir)
                : Transfers.record(dir, id).map(List::of).orElse(List.of());
        if (id != null && records.isEmpty()) {
            spec.commandLine().getErr().println("fsp status: no transfer " + id + " (see fsp status)");
            return ExitCodes.FAILURE;
        }
        for (Transfers.Record r : records) {
            out.println(json ? json(r) : line(r));
        }
        if (id != null && !json) {
            out.print(Transfers.output(dir, id));
        }
        out.flush();
        return ExitCodes.OK;
    }

    private static String line(Transfers.Record r) {
        String state = r.exit() == null ? r.state() : r.state() + " (exit " + r.exit() + ")";
        String more = progress(r).map(p -> ", " + p).orElse("");
        String resume = r.state().equals("interrupted") ? "; to resume: cd " + r.cwd() + " && " + r.commandLine() + " --detach" : "";
        return r.id() + "  " + state + more + "  " + r.commandLine() + "  (in " + r.cwd() + ")" + resume;
    }

    /** Bytes, rate and ETA of a transfer running in this agent. */
    private static Optional<String> progress(Transfers.Record r) {
        return Transfers.inThisAgent().flatMap(t -> t.running(r.id())).map(run -> {
            long done = run.done.getAsLong();
            long total = run.total.getAsLong();
            double seconds = Math.max(1e-3, (System.currentTimeMillis() - run.startedMillis) / 1e3);
            double rate = done / seconds;
            String eta = total > 0 && rate > 0 ? String.format(Locale.ROOT, ", ETA %.0f s", (total - done) / rate) : "";
            String blocks = run.blocks == null ? "" : ", " + run.blocks.getAsLong() + " blocks on disk, "
                    + run.recovered.getAsLong() + " recovered";
            return String.format(Locale.ROOT, "%.1f of %.1f MiB, %.1f MB/s%s%s", done / 1048576.0, total / 1048576.0,
                    rate / 1e6, eta, blocks);
        });
    }

    private static String json(Transfers.Record r) {
        StringBuilder sb = new StringBuilder("{\"id\":\"").append(r.id()).append("\",\"state\":\"").append(r.state())
                .append("\",\"exit\":").append(r.exit()).append(",\"cwd\":").append(quote(r.cwd().toString()))
                .append(",\"command\":").append(quote(r.commandLine()));
        Transfers.inThisAgent().flatMap(t -> t.running(r.id())).ifPresent(run ->
                sb.append(",\"bytes_done\":").append(run.done.getAsLong()).append(",\"bytes_total\":")
                        .append(run.total.getAsLong()).append(run.blocks == null ? "" : ",\"blocks_done\":"
                                + run.blocks.getAsLong() + ",\"blocks_recovered\":" + run.recovered.getAsLong()));
        return sb.append('}').toString();
    }

    private static String quote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
