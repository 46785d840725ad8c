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
    private int users;

    /** A charge of a user of its own: these tests are about the whole budget, not a user's share. */
    private PlanBudget.Charge charge() {
        return budget.charge("user" + users++);
    }

    /** One user's running plans hold at most half the budget; what they keep for re-fetches does not count. */
    @Test
    void oneUserRunsPlansOfAtMostHalfTheBudget() throws Exception {
        PlanBudget.Charge a = budget.charge("alice");
        a.add(40);
        PlanBudget.Charge more = budget.charge("alice");
        PlanBudgetExceededException e = assertThrows(PlanBudgetExceededException.class, () -> more.add(20));
        assertEquals("the transfers of user alice hold 40 files and directories of the 50 one user may (half of"
                + " max-planned), and this one needs 20 more", e.getMessage());
        budget.charge("bob").add(50); // the other half is there for others
        more.add(10);
        a.ended(() -> forgotten.add("a")); // kept for re-fetches: alice's running plans hold 10 now
        PlanBudget.Charge after = budget.charge("alice");
        after.add(40); // the budget gives the kept one up for it
        assertEquals(List.of("a"), forgotten);
        assertEquals(100, budget.held());
        more.close();
        after.close();
        budget.charge("alice").add(50);
    }

    @Test
    void runningTransfersAreNeverGivenUp() throws Exception {
        PlanBudget.Charge running = charge();
        running.add(40);
        PlanBudget.Charge other = charge();
        other.add(40);
        PlanBudget.Charge next = charge();
        PlanBudgetExceededException e = assertThrows(PlanBudgetExceededException.class, () -> next.add(30));
        assertEquals("the server's transfers hold 80 files and directories of its max-planned 100, and this one"
                + " needs 30 more", e.getMessage());
        next.add(20); // what is left is still there
        assertEquals(100, budget.held());
        running.close();
        other.close();
        next.close();
        assertEquals(0, budget.held());
    }

    @Test
    void givenBackWhenEndedAndForgottenInEitherOrder() throws Exception {
        PlanBudget.Charge a = charge();
        a.add(30);
        a.ended(() -> forgotten.add("a"));
        assertEquals(30, budget.held(), "kept for re-fetches");
        a.forgotten();
        assertEquals(0, budget.held());

        PlanBudget.Charge b = charge();
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
        PlanBudget.Charge old = charge();
        old.add(30);
        old.ended(() -> forgotten.add("old"));
        PlanBudget.Charge newer = charge();
        newer.add(30);
        newer.ended(() -> forgotten.add("newer"));
        PlanBudget.Charge running = charge();
        running.add(30);

        PlanBudget.Charge next = charge();
        next.add(20); // 90 held: the oldest kept one goes
        assertEquals(List.of("old"), forgotten);
        assertEquals(80, budget.held());
        old.forgotten(); // its session forgets it, as the callback asks
        assertEquals(80, budget.held(), "not given back twice");

        PlanBudget.Charge last = charge();
        assertThrows(PlanBudgetExceededException.class, () -> last.add(60)); // newer's 30 are not enough
        assertEquals(List.of("old"), forgotten, "newer is not given up for a plan that is refused anyway");
        assertEquals(80, budget.held());
        last.add(50); // newer's 30 make the room
        assertEquals(List.of("old", "newer"), forgotten);
        assertEquals(130, budget.held() + 30, "100 held");
        newer.forgotten();
        next.close();
        last.close();
        running.close();
        assertEquals(0, budget.held());
    }

    @Test
    void oneAtATimeTakesSteps() throws Exception {
        PlanBudget small = new PlanBudget(2 * (PlanBudget.STEP + 10)); // a user's share: one step and 10
        PlanBudget.Charge c = small.charge("alice");
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
