/**
 * The cdc-connector service: {@link io.changestream.cdc.CdcMain} (command line), {@link io.changestream.cdc.CdcConnector}
 * (capture + health) and its validated {@link io.changestream.cdc.CdcConfig}.
 */
package io.changestream.cdc;
