package io.changestream.logs.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CallerQuotasTest {

    @Test
    void aTokenPastItsConnectionsIsRefusedNamingTheSettingAndAReleaseGivesOneBack() {
        CallerQuotas quotas = new CallerQuotas(new CallerLimits(2, 10, 100, 100));
        CallerQuotas.Grant one = quotas.acquire("alice", "10.0.0.1", "svc/r1");
        CallerQuotas.Grant two = quotas.acquire("alice", "10.0.0.2", "svc/r1");
        CallerQuotas.Grant three = quotas.acquire("alice", "10.0.0.3", "svc/r1");
        assertTrue(one.granted() && two.granted());
        assertFalse(three.granted());
        assertTrue(three.refusal().contains("limits.maxConnectionsPerToken = 2"), three.refusal());
        assertTrue(quotas.acquire("bob", "10.0.0.1", "svc/r1").granted(), "another token is not held up");
        one.lease().release();
        one.lease().release();
        assertEquals(1, quotas.connectionsOf("alice"), "a release counts once");
        assertTrue(quotas.acquire("alice", "10.0.0.3", "svc/r1").granted());
    }

    @Test
    void aTokenPastItsRunsIsRefusedButMoreViewersOfARunItHoldsAreNot() {
        CallerQuotas quotas = new CallerQuotas(new CallerLimits(10, 2, 100, 100));
        assertTrue(quotas.acquire("alice", "a", "svc/r1").granted());
        assertTrue(quotas.acquire("alice", "a", "svc/r2").granted());
        assertTrue(quotas.acquire("alice", "a", "svc/r2").granted(), "a second tab of a run it streams");
        CallerQuotas.Grant third = quotas.acquire("alice", "a", "svc/r3");
        assertFalse(third.granted());
        assertTrue(third.refusal().contains("limits.maxRunsPerToken = 2"), third.refusal());
    }

    @Test
    void oneAddressIsBoundedWhateverTokensItUsesAndIdleCallersAreForgotten() {
        CallerQuotas quotas = new CallerQuotas(new CallerLimits(10, 10, 2, 1));
        CallerQuotas.Grant a = quotas.acquire("t1", "10.0.0.9", "svc/r1");
        assertTrue(a.granted());
        CallerQuotas.Grant otherRun = quotas.acquire("t2", "10.0.0.9", "svc/r2");
        assertTrue(otherRun.refusal().contains("limits.maxRunsPerAddress = 1"), otherRun.refusal());
        CallerQuotas.Grant b = quotas.acquire("t3", "10.0.0.9", "svc/r1");
        assertTrue(b.granted());
        CallerQuotas.Grant c = quotas.acquire("t4", "10.0.0.9", "svc/r1");
        assertTrue(c.refusal().contains("limits.maxConnectionsPerAddress = 2"), c.refusal());
        a.lease().release();
        b.lease().release();
        assertEquals(0, quotas.callers(), "nothing is kept for callers holding nothing");
    }

    @Test
    void everyLimitMustBePositiveNamingTheSetting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new CallerLimits(1, 0, 1, 1));
        assertEquals("limits.maxRunsPerToken must be positive, was 0", e.getMessage());
    }
}
