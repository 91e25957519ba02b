package io.changestream.cdc;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingException;
import java.util.List;

/**
 * What the cdc settings declarations need beyond the shared {@link Setting} (decision 2701): a text that must not be
 * blank or must match a pattern, a choice whose allowed values are also a check (so a record built directly is held
 * to them, not only a parsed value), the shown default of a setting whose default depends on {@code database.kind},
 * and a rule between two settings that fails naming its key. Stateless; touches no other cdc class, so the records'
 * static declarations may use it without an initialization cycle.
 */
public final class CdcSettings {

    private CdcSettings() {
    }

    /** A text setting that refuses a blank value. */
    public static Setting<String> text(String key) {
        return Setting.string(key).check(value -> !value.isBlank(), "must not be blank");
    }

    /** A text setting whose value must match {@code regex} whole. */
    public static Setting<String> matching(String key, String regex) {
        return Setting.string(key).check(value -> value.matches(regex), "must match " + regex);
    }

    /** One of {@code allowed} (any case, read lower case); a value built in code is checked against them too. */
    public static Setting<String> oneOf(String key, String... allowed) {
        List<String> names = List.of(allowed);
        return Setting.oneOf(key, allowed).check(names::contains, "must be one of " + String.join(", ", names));
    }

    /** The shown default of a setting whose default depends on {@code database.kind}, as README.md writes it. */
    public static String byKind(Object onPostgres, Object onMariaDb) {
        return onPostgres + " on postgres, " + onMariaDb + " on mariadb";
    }

    /** Fails naming {@code setting} ("{@code <key> <requirement>}") unless {@code ok}: a rule between settings. */
    public static void require(boolean ok, Setting<?> setting, String requirement) {
        if (!ok) {
            throw new SettingException(setting.key(), setting.key() + " " + requirement);
        }
    }
}
