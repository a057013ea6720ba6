package settlementhttp

import (
	"time"

	"atcp/internal/markets/calendar"
	"atcp/internal/settlement"
)

// The reference rendering of the envelope: the wire types filled from
// Service.Settlement and encoded by reflection, as the endpoint did before
// it wrote Service.Rendered (reference_test.go compares the two).

func product(f settlement.Figure) SettlementProduct {
	return SettlementProduct{RevenueTotal: amount(f.Revenue), BackupFeeTotal: amount(f.BackupFee), PenaltyTotal: amount(f.Penalty)}
}

func backupProduct(f settlement.Figure) SettlementBackupProduct {
	return SettlementBackupProduct{RevenueTotal: amount(f.Revenue), PenaltyTotal: amount(f.Penalty)}
}

func products(t settlement.Totals) SettlementProducts {
	return SettlementProducts{
		FCR: product(t[0]), FCRBackup: backupProduct(t[1]), AFRRCPos4h: product(t[2]), AFRRCNeg4h: product(t[3]),
		AFRRCPos15min: product(t[4]), AFRRCNeg15min: product(t[5]), AFRREPos: product(t[6]), AFRREPosBackup: backupProduct(t[7]),
		AFRRENeg: product(t[8]), AFRRENegBackup: backupProduct(t[9]),
	}
}

func blockProducts(b settlement.Block) SettlementBlockProducts {
	var out SettlementBlockProducts
	p := func(k settlement.ProductKey) *SettlementProduct {
		if f, ok := b.Products[k]; ok {
			v := product(f)
			return &v
		}
		return nil
	}
	bp := func(k settlement.ProductKey) *SettlementBackupProduct {
		if f, ok := b.Products[k]; ok {
			v := backupProduct(f)
			return &v
		}
		return nil
	}
	out.FCR, out.FCRBackup, out.AFRRCPos4h, out.AFRRCNeg4h = p(settlement.FCR), bp(settlement.FCRBackup), p(settlement.AFRRCPos4h), p(settlement.AFRRCNeg4h)
	out.AFRRCPos15min, out.AFRRCNeg15min = p(settlement.AFRRCPos15min), p(settlement.AFRRCNeg15min)
	out.AFRREPos, out.AFRREPosBackup = p(settlement.AFRREPos), bp(settlement.AFRREPosBackup)
	out.AFRRENeg, out.AFRRENegBackup = p(settlement.AFRRENeg), bp(settlement.AFRRENegBackup)
	return out
}

func toEnvelope(e settlement.Envelope, rule settlement.Rule) SettlementEnvelope {
	out := SettlementEnvelope{OrganizationID: e.OrganizationID, Start: e.Window.Start, End: e.Window.End, Status: string(e.Status), Currency: "EUR",
		Assets: make([]SettlementAsset, len(e.Assets)), SettlementProducts: products(e.Totals)}
	for i, a := range e.Assets {
		blocks := make([]SettlementBlock, len(a.Blocks))
		for j, b := range a.Blocks {
			blocks[j] = SettlementBlock{BlockStart: b.Start, BlockEnd: b.Start.Add(15 * time.Minute), DeliveryDay: deliveryDay(b.Start),
				ProcessedAt: b.ProcessedAt, Status: string(e.Status), FinalAt: rule.FinalAt(b.Start), SettlementBlockProducts: blockProducts(b)}
		}
		out.Assets[i] = SettlementAsset{AssetID: a.AssetID, Blocks: blocks, SettlementProducts: products(a.Totals)}
	}
	return out
}

func deliveryDay(t time.Time) string { return calendar.DayOf(t).String() }
