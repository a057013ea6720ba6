// Package markets groups the balancing-market areas of atcp: the market
// calendar shared by all of them (calendar), FCR (fcr) and aFRR capacity,
// energy and backup market (afrr).
package markets
