package io.fsp.server.stripe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanBudgetTest {
    private final PlanBudget budget = new PlanBudget(100);
    private final List<String> forgotten = new ArrayList<>();

    @Test
    void runningTransfersAreNeverGivenUp() throws Exception {
        PlanBudget.Charge running = budget.charge();
        running.add(80);
        PlanBudget.Charge next = budget.charge();
        PlanBudgetExceededException e = assertThrows(PlanBudgetExceededException.class, () -> next.add(30));
        assertEquals("the server's transfers hold 80 files and directories of its max-planned 100, and this one"
                + " needs 30 more", e.getMessage());
        next.add(20); // what is left is still there
        assertEquals(100, budget.held());
        running.close();
        next.close();
        assertEquals(0, budget.held());
    }

    @Test
    void givenBackWhenEndedAndForgottenInEitherOrder() throws Exception {
        PlanBudget.Charge a = budget.charge();
        a.add(30);
        a.ended(() -> forgotten.add("a"));
        assertEquals(30, budget.held(), "kept for re-fetches");
        a.forgotten();
        assertEquals(0, budget.held());

        PlanBudget.Charge b = budget.charge();
        b.add(40);
        b.forgotten(); // the session closed while it ran
        assertEquals(40, budget.held(), "still running");
        b.ended(() -> forgotten.add("b"));
        assertEquals(0, budget.held());
        b.close();
        b.forgotten();
        assertEquals(0, budget.held(), "given back once");
        assertEquals(List.of(), forgotten);
    }

    @Test
    void keptTransfersMakeRoomOldestFirst() throws Exception {
        PlanBudget.Charge old = budget.charge();
        old.add(30);
        old.ended(() -> forgotten.add("old"));
        PlanBudget.Charge newer = budget.charge();
        newer.add(30);
        newer.ended(() -> forgotten.add("newer"));
        PlanBudget.Charge running = budget.charge();
        running.add(30);

        PlanBudget.Charge next = budget.charge();
        next.add(20); // 90 held: the oldest kept one goes
        assertEquals(List.of("old"), forgotten);
        assertEquals(80, budget.held());
        old.forgotten(); // its session forgets it, as the callback asks
        assertEquals(80, budget.held(), "not given back twice");

        assertThrows(PlanBudgetExceededException.class, () -> next.add(60)); // newer's 30 are not enough
        assertEquals(List.of("old"), forgotten, "newer is not given up for a plan that is refused anyway");
        assertEquals(80, budget.held());
        next.add(50); // newer's 30 make the room
        assertEquals(List.of("old", "newer"), forgotten);
        assertEquals(100, budget.held());
        newer.forgotten();
        next.close();
        running.close();
        assertEquals(0, budget.held());
    }

    @Test
    void oneAtATimeTakesSteps() throws Exception {
        PlanBudget small = new PlanBudget(PlanBudget.STEP + 10);
        PlanBudget.Charge c = small.charge();
        for (int i = 0; i < PlanBudget.STEP; i++) {
            c.addOne();
        }
        assertEquals(PlanBudget.STEP, small.held());
        assertThrows(PlanBudgetExceededException.class, c::addOne, "the next step does not fit");
        c.close();
        assertEquals(0, small.held());
        assertTrue(PlanBudget.defaultLimit() >= Runtime.getRuntime().maxMemory() / PlanBudget.BYTES_PER_ENTRY);
    }
}
