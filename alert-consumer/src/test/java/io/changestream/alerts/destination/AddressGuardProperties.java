package io.changestream.alerts.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.UnknownHostException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class AddressGuardProperties {

    /** The reference model: the IPv4 ranges the guard must refuse. */
    private static boolean refusedByModel(int a, int b) {
        return a == 0 || a == 10 || a == 127 || (a == 169 && b == 254) || (a == 172 && b >= 16 && b <= 31)
                || (a == 192 && b == 168) || (a == 100 && b >= 64 && b <= 127) || a >= 224;
    }

    @Property(tries = 5_000, seed = "5")
    void ipv4RefusalMatchesTheModel(@ForAll @IntRange(max = 255) int a, @ForAll @IntRange(max = 255) int b,
                                    @ForAll @IntRange(max = 255) int c, @ForAll @IntRange(max = 255) int d)
            throws UnknownHostException {
        InetAddress address = InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        assertEquals(refusedByModel(a, b), AddressGuard.isRefused(address), address.getHostAddress());
    }

    @Property(tries = 2_000, seed = "6")
    void ipv4MappedIpv6AddressesAreJudgedLikeTheirIpv4(@ForAll @IntRange(max = 255) int a,
                                                        @ForAll @IntRange(max = 255) int b)
            throws UnknownHostException {
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = (byte) a;
        mapped[13] = (byte) b;
        mapped[15] = 1;
        // the JDK turns a mapped address into an Inet4Address; either way the verdict must match
        assertEquals(refusedByModel(a, b), AddressGuard.isRefused(InetAddress.getByAddress(mapped)));
    }
}
