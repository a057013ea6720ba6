// Package replay is the simulated balancing market of the demonstration
// environment. It embeds real published market results (FCR and aFRR
// capacity auctions, part of a day's aFRR energy bid ladder, grid
// frequency, reBAP and day-ahead prices, 2024 aFRR activation; see
// data/SOURCES.md), loads them strictly, maps any delivery day onto the
// replayed days block by block and quarter-hour by quarter-hour in German
// local time, and clears bids against them with pure functions. Published
// numbers and modelled ones are told apart on every outcome (PriceSource).
package replay

import (
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"atcp/internal/markets/calendar"
)

// Embedded holds the data files (CSV, SOURCES.md, PROVENANCE.md).
//
//go:embed data
var Embedded embed.FS

// The data files, relative to the data directory.
const (
	FCRFile            = "fcr_capacity_results_2026-01-25_2026-02-02.csv"
	AFRRCapacityFile   = "afrr_capacity_results_DE_2026-02-01_2026-02-02.csv"
	AFRRWeekFile       = "afrr_capacity_results_DE_2026-01-25_2026-01-31.csv"
	FrequencyFile      = "grid_frequency_15min_stats_2026-02-01_2026-02-02.csv"
	RebapFile          = "rebap_imbalance_price_DE_15min_2026-01-25_2026-02-02.csv"
	DayAheadFile       = "day_ahead_prices_DE_LU_15min_2026-01-25_2026-02-02.csv"
	ActivatedFile      = "supplementary_2024-02-04_2024-02-05/afrr_activated_DE_15min_2024-02-04_2024-02-05.csv"
	EnergyOverviewFile = "afrr_energy_market_overview_DE_2026-02-01_partial.csv"
)

// Direction is an aFRR product direction.
type Direction string

// The directions: pos injects into the grid (system short), neg absorbs
// from it (system long).
const (
	Pos Direction = "pos"
	Neg Direction = "neg"
)

// BlocksPerDay is the number of 4-hour capacity blocks of a day.
const BlocksPerDay = 6

// QuarterHoursPerDay is the number of quarter-hours of a 24-hour source day.
const QuarterHoursPerDay = 96

// FCRBlock is one FCR capacity auction result (uniform price).
type FCRBlock struct {
	Day   calendar.Day
	Block int // 0 = 00-04 local time ... 5 = 20-24
	// SettlementPriceDE is GERMANY_SETTLEMENTCAPACITY_PRICE, EUR per MW
	// per 4-hour block: what a German provider is paid.
	SettlementPriceDE float64
	CrossBorderPrice  float64 // EUR/MW per block
	DemandDE          float64 // MW
}

// AFRRCapacityBlock is one aFRR capacity auction result for Germany
// (pay-as-bid); prices are EUR per MW per hour.
type AFRRCapacityBlock struct {
	Day        calendar.Day
	Direction  Direction
	Block      int
	MinDE      float64 // lowest accepted bid
	AverageDE  float64 // average accepted bid
	MarginalDE float64 // highest accepted bid: the acceptance threshold
	// AllocatedDE is the capacity awarded in Germany (MW); OfferedDE the
	// capacity offered there.
	AllocatedDE float64
	OfferedDE   float64
}

// QuarterHour names a quarter-hour of a source day by its local
// wall-clock position: Index = hour*4 + minute/15, 0..95.
type QuarterHour struct {
	Day   calendar.Day
	Index int
}

func (q QuarterHour) String() string {
	return fmt.Sprintf("%s %02d:%02d", q.Day, q.Index/4, q.Index%4*15)
}

// Frequency is the 15-minute statistics of the 1 Hz grid frequency.
type Frequency struct {
	MeanHz, MinHz, MaxHz, StdHz float64
	Samples                     int // 1 s samples in the quarter-hour (900 when complete)
}

// Activation is the real activated aFRR in Germany in one quarter-hour
// of the 2024 calibration days: average MW over the quarter-hour.
type Activation struct {
	QuarterHour
	PosMW, NegMW float64
}

// EnergyOverview is one row of the regelleistung.net aFRR energy market
// overview: statistics of the German energy-bid ladder of one
// quarter-hour and direction (not activation prices). Prices are EUR/MWh
// in the platform's convention (what the provider receives), converted
// from the file's: for NEG the file gives the payment from the provider to
// the TSO, so its prices are negated here (see loadEnergyOverview).
type EnergyOverview struct {
	MinEUR      float64 // the first (cheapest) bid of the ladder
	AverageEUR  float64 // the average over the ladder
	MarginalEUR float64 // the last bid of the full ladder (at the price limit), not a clearing price
	OfferedMW   float64
}

// Dataset is the loaded market data. It is read-only after loading and
// safe for concurrent use.
type Dataset struct {
	fcr       map[blockKey]FCRBlock
	afrr      map[afrrKey]AFRRCapacityBlock
	frequency map[QuarterHour]Frequency
	rebap     map[QuarterHour]float64
	dayAhead  map[QuarterHour]float64
	activated []Activation
	overview  map[overviewKey]EnergyOverview
	// model is the activation model calibrated on the 2024 volumes.
	model ActivationModel
	// reference is, per direction, the bid ladder of the average overview
	// row: the shape of the synthetic ladders where no overview exists.
	reference map[Direction]Ladder
}

type overviewKey struct {
	q   QuarterHour
	dir Direction
}

type blockKey struct {
	day   calendar.Day
	block int
}

type afrrKey struct {
	day   calendar.Day
	dir   Direction
	block int
}

// FCR returns the FCR result of a block of a source day.
func (d *Dataset) FCR(day calendar.Day, block int) (FCRBlock, bool) {
	b, ok := d.fcr[blockKey{day, block}]
	return b, ok
}

// AFRRCapacity returns the aFRR capacity result of a block of a source day.
func (d *Dataset) AFRRCapacity(day calendar.Day, dir Direction, block int) (AFRRCapacityBlock, bool) {
	b, ok := d.afrr[afrrKey{day, dir, block}]
	return b, ok
}

// Frequency returns the frequency statistics of a source quarter-hour.
func (d *Dataset) Frequency(q QuarterHour) (Frequency, bool) {
	f, ok := d.frequency[q]
	return f, ok
}

// Rebap returns the reBAP imbalance price (EUR/MWh) of a source quarter-hour.
func (d *Dataset) Rebap(q QuarterHour) (float64, bool) {
	p, ok := d.rebap[q]
	return p, ok
}

// DayAhead returns the DE-LU day-ahead price (EUR/MWh) of a source quarter-hour.
func (d *Dataset) DayAhead(q QuarterHour) (float64, bool) {
	p, ok := d.dayAhead[q]
	return p, ok
}

// Activated returns the 2024 activated aFRR volumes used for calibration.
func (d *Dataset) Activated() []Activation { return slices.Clone(d.activated) }

// EnergyOverview returns the real aFRR energy bid ladder statistics of a
// source quarter-hour and direction, where published (2026-02-01
// 00:00-09:30 only).
func (d *Dataset) EnergyOverview(q QuarterHour, dir Direction) (EnergyOverview, bool) {
	o, ok := d.overview[overviewKey{q, dir}]
	return o, ok
}

// ActivationModel returns the calibrated activation model.
func (d *Dataset) ActivationModel() ActivationModel { return d.model }

var loadEmbedded = sync.OnceValues(func() (*Dataset, error) {
	sub, err := fs.Sub(Embedded, "data")
	if err != nil {
		return nil, err
	}
	return LoadFS(sub)
})

// Load parses the embedded data once and returns it; an error means a
// broken build, and the server must not start with it.
func Load() (*Dataset, error) { return loadEmbedded() }

// LoadFS parses the data files (named by the *File constants) from fsys.
// It is strict: a missing column, an unparseable or non-finite number, a
// quarter-hour off the grid, a local time that does not match its UTC
// time, a duplicate or a gap fails the whole load, naming file and line.
// The replayed days (ReplayedDeliveryDay and ReplayedBiddingDay) must be
// complete in every series.
func LoadFS(fsys fs.FS) (*Dataset, error) {
	d := &Dataset{
		fcr: map[blockKey]FCRBlock{}, afrr: map[afrrKey]AFRRCapacityBlock{},
		frequency: map[QuarterHour]Frequency{}, rebap: map[QuarterHour]float64{}, dayAhead: map[QuarterHour]float64{},
		overview: map[overviewKey]EnergyOverview{},
	}
	steps := []func(fs.FS) error{
		d.loadFCR,
		func(f fs.FS) error { return d.loadAFRR(f, AFRRWeekFile) },
		func(f fs.FS) error { return d.loadAFRR(f, AFRRCapacityFile) },
		d.loadFrequency,
		func(f fs.FS) error { return loadPrices(f, RebapFile, d.rebap) },
		func(f fs.FS) error { return loadPrices(f, DayAheadFile, d.dayAhead) },
		d.loadActivated,
		d.loadEnergyOverview,
	}
	for _, step := range steps {
		if err := step(fsys); err != nil {
			return nil, err
		}
	}
	if err := d.checkComplete(); err != nil {
		return nil, err
	}
	var pool []Frequency
	for _, f := range d.frequency {
		if f.Samples >= MinSamples {
			pool = append(pool, f)
		}
	}
	d.model = Calibrate(pool, d.activated)
	d.reference = referenceLadders(d.overview)
	return d, nil
}

// table is a CSV file read strictly: every row has as many fields as the
// header, and the columns asked for exist.
type table struct {
	file string
	cols map[string]int
	rows [][]string
}

func readTable(fsys fs.FS, file string, need ...string) (*table, error) {
	f, err := fsys.Open(file)
	if err != nil {
		return nil, fmt.Errorf("replay data: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = false
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("replay data %s: header: %w", file, err)
	}
	t := &table{file: file, cols: map[string]int{}}
	for i, h := range header {
		h = strings.TrimPrefix(h, "\ufeff")
		if _, dup := t.cols[h]; dup {
			return nil, fmt.Errorf("replay data %s: column %q twice", file, h)
		}
		t.cols[h] = i
	}
	for _, c := range need {
		if _, ok := t.cols[c]; !ok {
			return nil, fmt.Errorf("replay data %s: missing column %q", file, c)
		}
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("replay data %s: %w", file, err)
		}
		t.rows = append(t.rows, rec)
	}
	if len(t.rows) == 0 {
		return nil, fmt.Errorf("replay data %s: no rows", file)
	}
	return t, nil
}

// rowErr names the file line (the header is line 1) of row i.
func (t *table) rowErr(i int, col string, format string, args ...any) error {
	return fmt.Errorf("replay data %s line %d column %s: %s", t.file, i+2, col, fmt.Sprintf(format, args...))
}

func (t *table) str(i int, col string) string { return t.rows[i][t.cols[col]] }

func (t *table) num(i int, col string) (float64, error) {
	s := t.str(i, col)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, t.rowErr(i, col, "%q is not a finite number", s)
	}
	return v, nil
}

// nums parses several columns at once into the pointers.
func (t *table) nums(i int, cols []string, dst ...*float64) error {
	for k, c := range cols {
		v, err := t.num(i, c)
		if err != nil {
			return err
		}
		*dst[k] = v
	}
	return nil
}

func (t *table) day(i int, col string) (calendar.Day, error) {
	d, err := calendar.ParseDay(t.str(i, col))
	if err != nil {
		return calendar.Day{}, t.rowErr(i, col, "%v", err)
	}
	if d.IsClockChangeDay() {
		// The mapping indexes source quarter-hours by local wall clock,
		// which is unique only on 24-hour days.
		return calendar.Day{}, t.rowErr(i, col, "%s is a clock-change day; source days must have 24 hours", d)
	}
	return d, nil
}

// product parses PREFIX_hh_hh (a 4-hour block in local time) into the
// block index; prefixes are the allowed direction words.
func (t *table) product(i int, col string, prefixes ...string) (string, int, error) {
	s := t.str(i, col)
	parts := strings.Split(s, "_")
	if len(parts) == 3 && slices.Contains(prefixes, parts[0]) {
		from, err1 := strconv.Atoi(parts[1])
		to, err2 := strconv.Atoi(parts[2])
		if err1 == nil && err2 == nil && len(parts[1]) == 2 && len(parts[2]) == 2 && from%4 == 0 && to == from+4 && from >= 0 && to <= 24 {
			return parts[0], from / 4, nil
		}
	}
	return "", 0, t.rowErr(i, col, "%q is not a product %s_hh_hh of a 4-hour block", s, strings.Join(prefixes, "|"))
}

func (d *Dataset) loadFCR(fsys fs.FS) error {
	const price, cross, demand = "GERMANY_SETTLEMENTCAPACITY_PRICE_[EUR/MW]", "CROSSBORDER_SETTLEMENTCAPACITY_PRICE_[EUR/MW]", "GERMANY_DEMAND_[MW]"
	t, err := readTable(fsys, FCRFile, "DATE_FROM", "DATE_TO", "PRODUCT_TYPE", "PRODUCTNAME", price, cross, demand)
	if err != nil {
		return err
	}
	for i := range t.rows {
		day, err := t.deliveryDay(i)
		if err != nil {
			return err
		}
		if s := t.str(i, "PRODUCT_TYPE"); s != "FCR" {
			return t.rowErr(i, "PRODUCT_TYPE", "%q, want FCR", s)
		}
		_, block, err := t.product(i, "PRODUCTNAME", "NEGPOS")
		if err != nil {
			return err
		}
		b := FCRBlock{Day: day, Block: block}
		if err := t.nums(i, []string{price, cross, demand}, &b.SettlementPriceDE, &b.CrossBorderPrice, &b.DemandDE); err != nil {
			return err
		}
		if b.SettlementPriceDE < 0 {
			return t.rowErr(i, price, "negative capacity price %v", b.SettlementPriceDE)
		}
		k := blockKey{day, block}
		if _, dup := d.fcr[k]; dup {
			return t.rowErr(i, "PRODUCTNAME", "%s block %d repeated", day, block)
		}
		d.fcr[k] = b
	}
	return nil
}

// deliveryDay reads DATE_FROM, which must equal DATE_TO (day products).
func (t *table) deliveryDay(i int) (calendar.Day, error) {
	from, err := t.day(i, "DATE_FROM")
	if err != nil {
		return calendar.Day{}, err
	}
	if to := t.str(i, "DATE_TO"); to != from.String() {
		return calendar.Day{}, t.rowErr(i, "DATE_TO", "%q differs from DATE_FROM %s", to, from)
	}
	return from, nil
}

func (d *Dataset) loadAFRR(fsys fs.FS, file string) error {
	const (
		minP     = "GERMANY_MIN_CAPACITY_PRICE_[(EUR/MW)/h]"
		avgP     = "GERMANY_AVERAGE_CAPACITY_PRICE_[(EUR/MW)/h]"
		margP    = "GERMANY_MARGINAL_CAPACITY_PRICE_[(EUR/MW)/h]"
		alloc    = "GERMANY_ALLOCATED_VOLUME_[MW]"
		offered  = "GERMANY_SUM_OF_OFFERED_CAPACITY_[MW]"
		reserves = "TYPE_OF_RESERVES"
	)
	t, err := readTable(fsys, file, "DATE_FROM", "DATE_TO", reserves, "PRODUCT", minP, avgP, margP, alloc, offered)
	if err != nil {
		return err
	}
	for i := range t.rows {
		day, err := t.deliveryDay(i)
		if err != nil {
			return err
		}
		if s := t.str(i, reserves); s != "aFRR" {
			return t.rowErr(i, reserves, "%q, want aFRR", s)
		}
		prefix, block, err := t.product(i, "PRODUCT", "POS", "NEG")
		if err != nil {
			return err
		}
		b := AFRRCapacityBlock{Day: day, Direction: Direction(strings.ToLower(prefix)), Block: block}
		if err := t.nums(i, []string{minP, avgP, margP, alloc, offered}, &b.MinDE, &b.AverageDE, &b.MarginalDE, &b.AllocatedDE, &b.OfferedDE); err != nil {
			return err
		}
		if b.MinDE < 0 || b.MinDE > b.AverageDE || b.AverageDE > b.MarginalDE {
			return t.rowErr(i, margP, "prices min %v, average %v, marginal %v are not ordered", b.MinDE, b.AverageDE, b.MarginalDE)
		}
		if b.AllocatedDE <= 0 {
			return t.rowErr(i, alloc, "allocated volume %v is not positive", b.AllocatedDE)
		}
		k := afrrKey{day, b.Direction, block}
		if _, dup := d.afrr[k]; dup {
			return t.rowErr(i, "PRODUCT", "%s %s block %d repeated", day, b.Direction, block)
		}
		d.afrr[k] = b
	}
	return nil
}

// quarterHour reads time_utc and time_local_cet, which must name the same
// instant on the 15-minute grid.
func (t *table) quarterHour(i int) (QuarterHour, error) {
	utc, err := time.Parse(time.RFC3339, t.str(i, "time_utc"))
	if err != nil || !strings.HasSuffix(t.str(i, "time_utc"), "Z") {
		return QuarterHour{}, t.rowErr(i, "time_utc", "%q is not an RFC 3339 UTC instant", t.str(i, "time_utc"))
	}
	if !calendar.AlignedToPeriod(utc) {
		return QuarterHour{}, t.rowErr(i, "time_utc", "%s is not on a quarter-hour", utc)
	}
	local, err := time.Parse(time.RFC3339, t.str(i, "time_local_cet"))
	if err != nil || !local.Equal(utc) {
		return QuarterHour{}, t.rowErr(i, "time_local_cet", "%q does not name the instant %s", t.str(i, "time_local_cet"), utc.Format(time.RFC3339))
	}
	day := calendar.DayOf(utc)
	if day.IsClockChangeDay() {
		return QuarterHour{}, t.rowErr(i, "time_utc", "%s is on a clock-change day; source days must have 24 hours", day)
	}
	l := utc.In(calendar.Berlin)
	return QuarterHour{Day: day, Index: l.Hour()*4 + l.Minute()/15}, nil
}

func (d *Dataset) loadFrequency(fsys fs.FS) error {
	const mean, lo, hi, std, samples = "FREQ_MEAN_HZ", "FREQ_MIN_HZ", "FREQ_MAX_HZ", "FREQ_STD_HZ", "SAMPLE_COUNT"
	t, err := readTable(fsys, FrequencyFile, "time_utc", "time_local_cet", mean, lo, hi, std, samples)
	if err != nil {
		return err
	}
	for i := range t.rows {
		q, err := t.quarterHour(i)
		if err != nil {
			return err
		}
		var f Frequency
		if err := t.nums(i, []string{mean, lo, hi, std}, &f.MeanHz, &f.MinHz, &f.MaxHz, &f.StdHz); err != nil {
			return err
		}
		if f.MinHz < 45 || f.MaxHz > 55 || f.MinHz > f.MeanHz || f.MeanHz > f.MaxHz || f.StdHz < 0 {
			return t.rowErr(i, mean, "implausible statistics min %v mean %v max %v std %v", f.MinHz, f.MeanHz, f.MaxHz, f.StdHz)
		}
		n, err := strconv.Atoi(t.str(i, samples))
		if err != nil || n < 1 || n > 900 {
			return t.rowErr(i, samples, "%q is not a sample count 1..900", t.str(i, samples))
		}
		f.Samples = n
		if _, dup := d.frequency[q]; dup {
			return t.rowErr(i, "time_utc", "quarter-hour %s repeated", q)
		}
		d.frequency[q] = f
	}
	return nil
}

func loadPrices(fsys fs.FS, file string, into map[QuarterHour]float64) error {
	const price = "price_eur_per_mwh"
	t, err := readTable(fsys, file, "time_utc", "time_local_cet", price)
	if err != nil {
		return err
	}
	for i := range t.rows {
		q, err := t.quarterHour(i)
		if err != nil {
			return err
		}
		p, err := t.num(i, price)
		if err != nil {
			return err
		}
		if _, dup := into[q]; dup {
			return t.rowErr(i, "time_utc", "quarter-hour %s repeated", q)
		}
		into[q] = p
	}
	return nil
}

func (d *Dataset) loadActivated(fsys fs.FS) error {
	const pos, neg = "Deutschland (Positiv) [MW]", "Deutschland (Negativ) [MW]"
	t, err := readTable(fsys, ActivatedFile, "DATE", "TIMEZONE", "FROM_LOCAL", "TO_LOCAL", "UNIT", pos, neg)
	if err != nil {
		return err
	}
	seen := map[QuarterHour]bool{}
	for i := range t.rows {
		day, err := t.day(i, "DATE")
		if err != nil {
			return err
		}
		if tz, unit := t.str(i, "TIMEZONE"), t.str(i, "UNIT"); tz != "CET" || unit != "MW" {
			return t.rowErr(i, "TIMEZONE", "time zone %q unit %q, want CET and MW", tz, unit)
		}
		from, err := time.Parse("15:04", t.str(i, "FROM_LOCAL"))
		if err != nil || from.Minute()%15 != 0 {
			return t.rowErr(i, "FROM_LOCAL", "%q is not a quarter-hour hh:mm", t.str(i, "FROM_LOCAL"))
		}
		if to := t.str(i, "TO_LOCAL"); to != from.Add(15*time.Minute).Format("15:04") {
			return t.rowErr(i, "TO_LOCAL", "%q does not end the quarter-hour from %s", to, t.str(i, "FROM_LOCAL"))
		}
		a := Activation{QuarterHour: QuarterHour{day, from.Hour()*4 + from.Minute()/15}}
		if err := t.nums(i, []string{pos, neg}, &a.PosMW, &a.NegMW); err != nil {
			return err
		}
		if a.PosMW < 0 || a.NegMW < 0 {
			return t.rowErr(i, pos, "negative activated volume")
		}
		if seen[a.QuarterHour] {
			return t.rowErr(i, "FROM_LOCAL", "quarter-hour %s repeated", a.QuarterHour)
		}
		seen[a.QuarterHour] = true
		d.activated = append(d.activated, a)
	}
	return nil
}

// loadEnergyOverview reads the aFRR energy market overview. The file's
// NEG ladder runs from about +105 (its first, most favourable bid, in
// MIN) down to -15000 (MARGINAL, the last bid): its NEG prices are the
// payment from the provider to the TSO (the German convention of a
// payment direction), the opposite of the platform's, so they are negated
// (the platform's NEG ladder then runs from about -105, the provider pays,
// to +15000). A NEG row must be ordered MIN >= AVERAGE >= MARGINAL in the
// file, a POS row MIN <= AVERAGE <= MARGINAL: both become cheapest first.
// The file covers part of a day, so completeness is not required.
func (d *Dataset) loadEnergyOverview(fsys fs.FS) error {
	const (
		minP     = "GERMANY_MIN_ENERGY_PRICE_[EUR/MWh]"
		avgP     = "GERMANY_AVERAGE_ENERGY_PRICE_[EUR/MWh]"
		margP    = "GERMANY_MARGINAL_ENERGY_PRICE_[EUR/MWh]"
		offered  = "GERMANY_SUM_OF_OFFERED_CAPACITY_[MW]"
		reserves = "TYPE_OF_RESERVES"
	)
	t, err := readTable(fsys, EnergyOverviewFile, "DELIVERY_DATE", reserves, "PRODUCT", minP, avgP, margP, offered, "NOTE", "QH_START_LOCAL_CET", "QH_END_LOCAL_CET")
	if err != nil {
		return err
	}
	for i := range t.rows {
		day, err := t.day(i, "DELIVERY_DATE")
		if err != nil {
			return err
		}
		if s := t.str(i, reserves); s != "aFRR" {
			return t.rowErr(i, reserves, "%q, want aFRR", s)
		}
		dir, q, err := t.energyProduct(i, day)
		if err != nil {
			return err
		}
		if note := t.str(i, "NOTE"); note != "" {
			return t.rowErr(i, "NOTE", "unexpected note %q", note)
		}
		var o EnergyOverview
		if err := t.nums(i, []string{minP, avgP, margP, offered}, &o.MinEUR, &o.AverageEUR, &o.MarginalEUR, &o.OfferedMW); err != nil {
			return err
		}
		if dir == Neg {
			o.MinEUR, o.AverageEUR, o.MarginalEUR = -o.MinEUR, -o.AverageEUR, -o.MarginalEUR
		}
		if o.MinEUR > o.AverageEUR || o.AverageEUR > o.MarginalEUR {
			return t.rowErr(i, margP, "prices min %v, average %v, marginal %v are not a merit order of %s bids", t.str(i, minP), t.str(i, avgP), t.str(i, margP), dir)
		}
		if !(o.OfferedMW > 0) {
			return t.rowErr(i, offered, "offered volume %v is not positive", o.OfferedMW)
		}
		k := overviewKey{q, dir}
		if _, dup := d.overview[k]; dup {
			return t.rowErr(i, "PRODUCT", "%s %s repeated", q, dir)
		}
		d.overview[k] = o
	}
	return nil
}

// energyProduct parses PRODUCT (POS_nnn or NEG_nnn, quarter-hour nnn =
// 001..096 of the local day) and checks QH_START_LOCAL_CET and
// QH_END_LOCAL_CET against it.
func (t *table) energyProduct(i int, day calendar.Day) (Direction, QuarterHour, error) {
	s := t.str(i, "PRODUCT")
	dir, num, _ := strings.Cut(s, "_")
	n, err := strconv.Atoi(num)
	if (dir != "POS" && dir != "NEG") || len(num) != 3 || err != nil || n < 1 || n > QuarterHoursPerDay {
		return "", QuarterHour{}, t.rowErr(i, "PRODUCT", "%q is not a product POS_nnn or NEG_nnn of a quarter-hour 001..096", s)
	}
	q := QuarterHour{Day: day, Index: n - 1}
	start := time.Date(2000, 1, 1, q.Index/4, q.Index%4*15, 0, 0, time.UTC)
	if got := t.str(i, "QH_START_LOCAL_CET"); got != start.Format("15:04") {
		return "", QuarterHour{}, t.rowErr(i, "QH_START_LOCAL_CET", "%q is not the start of %s", got, s)
	}
	if got := t.str(i, "QH_END_LOCAL_CET"); got != start.Add(calendar.PeriodLength).Format("15:04") {
		return "", QuarterHour{}, t.rowErr(i, "QH_END_LOCAL_CET", "%q is not the end of %s", got, s)
	}
	return Direction(strings.ToLower(dir)), q, nil
}

// checkComplete requires every day present in a series to be whole (six
// blocks, twelve aFRR products, 96 quarter-hours) and the replayed days
// to be present in every series the clearing reads.
func (d *Dataset) checkComplete() error {
	perDay := func(name string, days []calendar.Day, want int) error {
		count := map[calendar.Day]int{}
		for _, day := range days {
			count[day]++
		}
		for day, n := range count {
			if n != want {
				return fmt.Errorf("replay data %s: %s has %d entries, want %d", name, day, n, want)
			}
		}
		for _, day := range []calendar.Day{ReplayedBiddingDay, ReplayedDeliveryDay} {
			if count[day] == 0 {
				return fmt.Errorf("replay data %s: replayed day %s missing", name, day)
			}
		}
		return nil
	}
	var days []calendar.Day
	for k := range d.fcr {
		days = append(days, k.day)
	}
	if err := perDay(FCRFile, days, BlocksPerDay); err != nil {
		return err
	}
	days = days[:0]
	for k := range d.afrr {
		days = append(days, k.day)
	}
	if err := perDay("aFRR capacity", days, 2*BlocksPerDay); err != nil {
		return err
	}
	for name, series := range map[string][]QuarterHour{
		FrequencyFile: keys(d.frequency), RebapFile: keys(d.rebap), DayAheadFile: keys(d.dayAhead),
	} {
		days = days[:0]
		for _, q := range series {
			days = append(days, q.Day)
		}
		if err := perDay(name, days, QuarterHoursPerDay); err != nil {
			return err
		}
	}
	if len(d.activated) == 0 || len(d.activated)%QuarterHoursPerDay != 0 {
		return fmt.Errorf("replay data %s: %d quarter-hours, want whole days", ActivatedFile, len(d.activated))
	}
	// The reference ladders (the synthetic ladders' shape) need both directions.
	for _, dir := range []Direction{Pos, Neg} {
		if !slices.ContainsFunc(keys(d.overview), func(k overviewKey) bool { return k.dir == dir }) {
			return fmt.Errorf("replay data %s: no %s quarter-hour", EnergyOverviewFile, dir)
		}
	}
	return nil
}

func keys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
