package io.fsp.testkit.relay;

import io.fsp.relay.RelayCommand;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * The {@code fsp-relay} program with faults, for tests and benchmarks that need a misbehaving relay process:
 * {@code --fault SPEC} (repeatable; {@code flip-bit:SEQ}, {@code stall}, …, see {@link FaultPlan#parse}) and
 * every option of {@code fsp-relay}. The faults are taken out of the arguments and given to the relay as
 * {@link FaultPlan#handlers()}; the rest is the relay program's, which prints its usual "listening on" line.
 */
public final class FaultyRelayCommand {
    private static final String OPTION = "--fault";

    private FaultyRelayCommand() {
    }

    public static void main(String[] args) {
        List<String> specs = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals(OPTION) && i + 1 < args.length) {
                specs.add(args[++i]);
            } else if (args[i].startsWith(OPTION + "=")) {
                specs.add(args[i].substring(OPTION.length() + 1));
            } else {
                rest.add(args[i]);
            }
        }
        FaultPlan plan;
        try {
            plan = FaultPlan.parse(specs);
        } catch (IllegalArgumentException e) {
            System.err.println("fsp-relay: --fault: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.err.println("fsp-relay: FAULTS towards clients " + plan.faults());
        System.exit(new CommandLine(new RelayCommand(plan.handlers())).execute(rest.toArray(String[]::new)));
    }
}
