/** The meter catalogue ({@link io.changestream.cdc.metrics.CdcMeter}) and the recorder the other packages call. */
package io.changestream.cdc.metrics;
