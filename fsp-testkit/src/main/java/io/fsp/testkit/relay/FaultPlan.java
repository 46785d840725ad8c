package io.fsp.testkit.relay;

import io.fsp.relay.ConnectionHandlers;
import io.fsp.relay.net.RelayServerInitializer;
import io.fsp.token.TransferId;
import java.util.List;
import java.util.Optional;

/** The faults a relay commits; {@link #NONE} for an honest relay. */
public record FaultPlan(List<Fault> faults) {
    public static final FaultPlan NONE = new FaultPlan(List.of());

    public FaultPlan {
        faults = List.copyOf(faults);
    }

    public static FaultPlan of(Fault... faults) {
        return new FaultPlan(List.of(faults));
    }

    public static FaultPlan parse(List<String> specs) {
        return new FaultPlan(specs.stream().map(Fault::parse).toList());
    }

    public boolean isEmpty() {
        return faults.isEmpty();
    }

    /**
     * What a relay is given to commit these faults ({@code RelayConfig.withHandlers}): a {@link FaultInjector} in
     * each connection's pipeline, or nothing at all for {@link #NONE}.
     */
    public ConnectionHandlers handlers() {
        if (isEmpty()) {
            return ConnectionHandlers.NONE;
        }
        ForeignBlocks foreign = new ForeignBlocks();
        return store -> new FaultInjector(this, store, foreign, RelayServerInitializer.SSL);
    }

    public boolean stalls() {
        return faults.stream().anyMatch(f -> f instanceof Fault.Stall);
    }

    /** Whether this serving of block {@code seq} gets a bit flipped (a one-time fault is spent by asking). */
    public boolean flipsBit(TransferId transfer, long seq) {
        return faults.stream().anyMatch(f -> f instanceof Fault.FlipBit b && b.seq() == seq
                || f instanceof Fault.FlipBitOnce o && o.seq() == seq && o.spent().compareAndSet(false, true)
                || f instanceof Fault.FlipBitOnceEvery e && seq % e.every() == 0 && e.spent().add(transfer + "/" + seq));
    }

    public boolean tampers(long seq) {
        return faults.stream().anyMatch(f -> f instanceof Fault.Tamper t && t.seq() == seq);
    }

    public boolean duplicates(long seq) {
        return faults.stream().anyMatch(f -> f instanceof Fault.Duplicate d && d.seq() == seq);
    }

    public boolean servesForeign(long seq) {
        return faults.stream().anyMatch(f -> f instanceof Fault.ForeignBlock b && b.seq() == seq);
    }

    public Optional<Long> closeAfter() {
        return faults.stream().filter(f -> f instanceof Fault.CloseAfter).map(f -> ((Fault.CloseAfter) f).bytes())
                .findFirst();
    }

    public Optional<Long> throttle() {
        return faults.stream().filter(f -> f instanceof Fault.Throttle).map(f -> ((Fault.Throttle) f).bytesPerSecond())
                .findFirst();
    }
}
