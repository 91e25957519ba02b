package io.changestream.alerts.destination;

import io.changestream.alerts.destination.http.AddressGuard;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.UnknownHostException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class AddressGuardProperties {

    /** The reference model: the IPv4 ranges the guard must refuse. */
    private static boolean refusedByModel(int a, int b, int c) {
        return a == 0 || a == 10 || a == 127 || (a == 169 && b == 254) || (a == 172 && b >= 16 && b <= 31)
                || (a == 192 && b == 168) || (a == 100 && b >= 64 && b <= 127) || a >= 224
                || (a == 192 && b == 0 && (c == 0 || c == 2)) || (a == 192 && b == 88 && c == 99)
                || (a == 198 && (b == 18 || b == 19)) || (a == 198 && b == 51 && c == 100)
                || (a == 203 && b == 0 && c == 113);
    }

    @Property(tries = 5_000, seed = "5")
    void ipv4RefusalMatchesTheModel(@ForAll @IntRange(max = 255) int a, @ForAll @IntRange(max = 255) int b,
                                    @ForAll @IntRange(max = 255) int c, @ForAll @IntRange(max = 255) int d)
            throws UnknownHostException {
        InetAddress address = InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        assertEquals(refusedByModel(a, b, c), AddressGuard.isRefused(address), address.getHostAddress());
    }

    @Property(tries = 2_000, seed = "6")
    void ipv4MappedIpv6AddressesAreJudgedLikeTheirIpv4(@ForAll @IntRange(max = 255) int a,
                                                        @ForAll @IntRange(max = 255) int b,
                                                        @ForAll @IntRange(max = 255) int c)
            throws UnknownHostException {
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = (byte) a;
        mapped[13] = (byte) b;
        mapped[14] = (byte) c;
        mapped[15] = 1;
        // the JDK turns a mapped address into an Inet4Address; either way the verdict must match
        assertEquals(refusedByModel(a, b, c), AddressGuard.isRefused(InetAddress.getByAddress(mapped)));
    }

    @Property(tries = 2_000, seed = "7")
    void nat64And6to4AddressesAreJudgedLikeTheIpv4TheyEmbed(@ForAll @IntRange(max = 255) int a,
                                                            @ForAll @IntRange(max = 255) int b,
                                                            @ForAll @IntRange(max = 255) int c)
            throws UnknownHostException {
        byte[] nat64 = new byte[16];
        nat64[1] = 0x64;
        nat64[2] = (byte) 0xff;
        nat64[3] = (byte) 0x9b;
        nat64[12] = (byte) a;
        nat64[13] = (byte) b;
        nat64[14] = (byte) c;
        nat64[15] = 1;
        assertEquals(refusedByModel(a, b, c), AddressGuard.isRefused(InetAddress.getByAddress(nat64)), "NAT64");
        byte[] sixToFour = new byte[16];
        sixToFour[0] = 0x20;
        sixToFour[1] = 0x02;
        sixToFour[2] = (byte) a;
        sixToFour[3] = (byte) b;
        sixToFour[4] = (byte) c;
        sixToFour[5] = 1;
        sixToFour[15] = 1;
        assertEquals(refusedByModel(a, b, c), AddressGuard.isRefused(InetAddress.getByAddress(sixToFour)), "6to4");
    }
}
