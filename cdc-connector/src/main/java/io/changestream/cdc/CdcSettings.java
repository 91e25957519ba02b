package io.changestream.cdc;

/**
 * The shown default of a cdc setting whose default depends on {@code database.kind}, as README.md writes it. Apart
 * from {@link CdcConfig} so that the records' static declarations may use it without an initialization cycle.
 */
public final class CdcSettings {

    private CdcSettings() {
    }

    /** {@code <pg> on postgres, <maria> on mariadb}. */
    public static String byKind(Object onPostgres, Object onMariaDb) {
        return onPostgres + " on postgres, " + onMariaDb + " on mariadb";
    }
}
