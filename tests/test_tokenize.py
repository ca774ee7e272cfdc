"""BM25 tokens of numbers, units, ranges and versions (`kbtools.index.tokenize`): every way a
technician spaces a value gives the tokens the knowledge's spelling gives, and codes stay
whole."""

from __future__ import annotations

import pytest

from kbtools.index.tokenize import Tokenizer, latin_words


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer()


@pytest.mark.parametrize("variants", [
    ("150psi", "150 psi", "150 PSI", "１５０ｐｓｉ"),
    ("0.5mm", "0.5 mm"),
    ("17.5MPa", "17.5 MPa"),
    ("16GB 内存", "16 GB 内存"),
    ("128MiB", "128 MiB"),
    ("10-20℃", "10~20℃", "10～20 ℃", "10 - 20°C", "10－20℃"),
    ("20-32", "20~32"),
    ("1.5-2.0 L", "1.5~2.0 L"),
    ("10-20mm", "10~20 mm"),
    ("TiDB v6.5.0", "TiDB 6.5.0"),
    ("V2.1 手册", "2.1 手册"),
    ("2hours", "2 hours"),
    ("M8×1.25", "M8x1.25", "M8X1.25", "M8*1.25", "m8×1.25"),
    ("1920x1080", "1920×1080", "1920*1080"),
    ("10x20mm", "10×20 mm"),
    ("pH6.5", "pH 6.5", "PH 6.5", "pH=6.5"),
    ("PM2.5", "PM 2.5"),
    ("MySQL5.7", "MySQL 5.7"),
    ("25℃", "25°C", "25 °C", "25摄氏度", "25 摄氏度"),
    ("77℉", "77 华氏度"),
    ("120Ω", "120 Ω", "120\u2126", "120 ohm", "120欧姆"),
    ("4.7kΩ", "4.7 kΩ", "4.7kohm", "4.7 kohm"),
    ("5μm", "5µm", "5 um", "5um", "5 μm"),
    ("10²", "10^2", "10 ^ 2"),
    ("10⁻⁵", "10^-5"),
    ("5m²", "5 m²", "5m2", "5 m2"),
])
def test_a_value_spaced_either_way_gives_the_same_tokens(tok, variants):
    assert len({tuple(tok(v)) for v in variants}) == 1, {v: tok(v) for v in variants}


def test_a_number_and_its_unit_are_two_tokens(tok):
    assert tok("92mm 风扇") == ["92", "mm", "风扇"]
    assert tok("油温 35-50℃") == ["油温", "35", "50", "c"]
    assert tok("从 v6.5.0 版本开始引入") == ["6.5.0", "6.5", "版本", "开始", "引入"]


@pytest.mark.parametrize("code", [
    "e17", "m8", "hx-260", "hx260", "0x80070005", "0xff", "0xdeadbeef", "1e-5", "1e10",
    "2024-03-01", "10m0s", "utf8mb4", "v7.1.0-alpha", "192.168.1.1", "2.4.1", "wo-2026-0318-03",
    "v1", "c++", "0x1f", "hx260", "x86", "c5.8xlarge", "h3.3", "e11.5", "ph15", "phase2",
])
def test_codes_versions_and_dates_stay_whole(code):
    assert latin_words(code) == (code,)


def test_a_size_product_is_its_sizes(tok):
    assert tok("M8x1.25 螺栓") == ["m8", "1.25", "螺栓"]
    assert tok("2x16GB") == ["2", "16", "gb"]
    assert tok("M8 M80") == ["m8", "m80"]  # codes stay distinct


def test_a_grouped_number_is_its_digits(tok):
    assert tok("1,000 L") == tok("1000 L") == ["1000", "l"]
    assert tok("1，000 升") == ["1000", "升"] and tok("1,234,567.5") == ["1234567.5"]
    assert tok("1,000mm") == tok("1000 mm")
    for not_grouped in ("12,5", "1,0000", "5,1,000", "1,000,00", "v1,000", "(1,2,3)"):
        assert tok(not_grouped) == tok(not_grouped.replace(",", " ")), not_grouped


@pytest.mark.parametrize("date", ["2026/03/19", "2026.03.19", "2026.3.19", "2026年3月19日",
                                  "2026 年 03 月 19 号", "2026-3-19", "2026-03-19T10:30"])
def test_a_date_is_also_its_iso_token(tok, date):
    assert "2026-03-19" in tok(date) and tok("2026-03-19") == ["2026-03-19", "2026-03"]


@pytest.mark.parametrize("not_a_date", ["2026.13.19", "2026.03.19.1", "1.2026.03.19",
                                        "10/03/2026", "2026/03", "wo-2026/03/19"])
def test_a_number_of_other_shape_is_no_date(tok, not_a_date):
    assert not any(t.count("-") == 2 and t[:4].isdigit() for t in tok(not_a_date))


def test_unit_signs_become_words_and_greek_letters_do_not(tok):
    assert tok("5μm") == ["5", "um"] and tok("5 m") == ["5", "m"]  # micrometres, not metres
    assert tok("10²") != tok("102") and tok("m²") == ["m2"]
    assert tok("μ-opioid") == tok("-opioid") and tok("ω=2πf") == ["2", "f"]


def test_a_stop_word_in_capitals_is_an_acronym(tok):
    assert tok("CAN 总线 故障") == ["can", "总线", "故障"]
    assert tok("CAN bus fault") == ["can", "bus", "fault"] and tok("开关拨到 ON 位置")[-2] == "on"
    assert tok("the pump can fail") == tok("Can the pump fail") == ["pump", "fail"]
    # a text all in capitals is shouted: its stop words are stop words
    assert tok("HOW DO I RESET THE PUMP") == ["reset", "pump"] and tok("A") == []


def test_a_release_x_y_0_is_also_its_series(tok):
    assert tok("v6.5.0") == tok("6.5.0") == ["6.5.0", "6.5"]
    assert tok("6.5.1") == ["6.5.1"] and tok("192.168.1.0") == ["192.168.1.0"]


@pytest.mark.parametrize("variants", [
    ("pH7", "pH 7", "PH 7", "pH=7", "ph7"),
    ("pH14", "pH 14"),
    ("pH0", "pH 0"),
    ("pH6-8", "pH 6-8", "pH 6~8"),
    ("pH6.5-7.5", "pH 6.5-7.5", "pH 6.5~7.5"),
])
def test_ph_with_a_whole_number_is_ph_and_the_number(tok, variants):
    assert len({tuple(tok(v)) for v in variants}) == 1, {v: tok(v) for v in variants}
    assert tok(variants[0])[0] == "ph"


def test_a_unit_that_is_a_stop_word_is_kept_after_its_number(tok):
    for micro in ("10us", "10 us", "10 μs", "10µs", "10 µs", "10 US"):
        assert tok(micro) == ["10", "us"], micro
    assert tok("10 us") != tok("10 ms") and tok("let us wait") == ["let", "wait"]
    assert tok("5in") == ["5", "in"]
    assert tok("5 in a row") == ["5", "row"]  # spaced, "in" is as often a word (1 in 10)
    # a and i glued to a number are names (stage 0a, 2i, 131I), not units: no token
    assert tok("stage 0a") == ["stage", "0"] and tok("2i/LIF") == ["2", "lif"]


@pytest.mark.parametrize("torque", [
    "10 N·m", "10N·m", "10 N.m", "10N.m", "10 N-m", "10Nm", "10 Nm", "10 N⋅m", "10 N・m",
    "10牛·米", "10 牛米", "10牛顿·米", "10 牛顿米",
])
def test_newton_metres_are_one_token_however_written(tok, torque):
    assert tok(torque) == ["10", "n.m"]


def test_newton_metres_stay_apart_from_nanometres_and_metres(tok):
    assert tok("10 nm") == tok("10nm") == ["10", "nm"]  # nanometres
    assert tok("10 m") == ["10", "m"] and tok("10 NM") == ["10", "nm"]
    assert tok("单位 N·m") == tok("单位 牛·米") == ["单位", "n.m"]
    assert tok("50 kN·m") == tok("50kNm") == tok("50 KN·m") == ["50", "kn.m"]
    assert tok("100 Nm³/h") == tok("100 Nm3/h") == ["100", "nm3", "h"]  # normal cubic metres
    assert tok("10 N·mm") == ["10", "n", "mm"] and tok("N-methyl") == ["nmethyl", "n", "methyl"]
    assert tok("Nm") == ["nm"]  # no number: not certain


@pytest.mark.parametrize("month", ["2026-03", "2026/3", "2026/03", "2026年3月", "2026 年 03 月",
                                   "2026-03-19", "2026/03/19", "2026年3月19日", "2026.3.19"])
def test_a_month_or_a_date_in_it_is_also_the_month_token(tok, month):
    assert "2026-03" in tok(month)


@pytest.mark.parametrize("not_a_month", ["2026.3", "1899/3", "2026/13", "2026-0", "v2026-03",
                                         "2026.03.19.1", "10/2026", "2026-2027"])
def test_a_number_of_other_shape_is_no_month(tok, not_a_month):
    assert not any(len(t) == 7 and t[4] == "-" for t in tok(not_a_month)), tok(not_a_month)


@pytest.mark.parametrize("variants", [
    ("10~20", "10～20", "10-20", "10 至 20", "10至20", "10到20", "10 到 20"),
    ("温度 10至20℃", "温度 10~20℃"),
    ("5%至10%", "5%~10%", "5% 到 10%"),
    ("5℃至10℃", "5℃~10℃", "5°C 到 10°C"),
    ("5mm到10mm", "5mm~10mm", "5 mm 至 10 mm"),
    ("pH6至8", "pH 6-8"),
])
def test_a_range_in_words_is_its_two_numbers(tok, variants):
    assert len({tuple(tok(v)) for v in variants}) == 1, {v: tok(v) for v in variants}


def test_to_that_is_no_range_stays(tok):
    assert tok("截至2026年") == ["截至", "2026", "年"] and tok("至少10") == ["至少", "10"]
    assert "到" in tok("第1章到第3章")


def test_a_number_of_wan_is_also_its_digits(tok):
    assert set(tok("30000")) < set(tok("3万")) and "30000" in tok("共 3 万元")
    assert "15000" in tok("1.5万") and "15000000" in tok("1,500万")
    assert "200000000" in tok("2亿") and "12345.6" in tok("1.23456万")
    for word in ("万一", "3万用表", "2万向节", "v3万"):
        assert not any(t.endswith("0000") for t in tok(word)), word


def test_degrees_without_a_sign_are_not_celsius(tok):
    # 度 after a number is also an angle, alcohol or a kWh: not made ℃
    assert tok("25度") == ["25", "度"] and tok("25℃") == ["25", "c"]


def test_english_clitics_are_no_words(tok):
    """The s of pump's was a token of its own and matched the s of in/s (a question about
    "the pump's max flow rate" was answered by a vibration table in in/s); the don of don't
    matched nothing but made noise."""
    assert tok("the pump's seal") == tok("the pump’s seal") == tok("the pump seal")
    assert tok("the P-200's seal") == ["p-200", "seal"] and tok("E17's reset") == ["e17", "reset"]
    assert tok("it doesn't shut off") == ["shut"] and tok("you'll see") == ["see"]
    assert tok("don't") == tok("I'd") == tok("we're") == []
    assert tok("velocity in in/s") == ["veloc", "s"] and tok("5 s") == ["5", "s"]  # seconds stay
    assert tok("O'Brien won't") == ["o", "brien", "won"]  # no stop word before n't: kept


@pytest.mark.parametrize(("hyphenated", "joined", "spaced"), [
    ("O-ring grease", "oring grease", "o ring grease"),
    ("E-mail alert", "email alert", "e mail alert"),
    ("re-torque the bolts", "retorque the bolts", "re torque the bolts"),
    ("pre-filter", "prefilter", "pre filter"),
    ("V-belt", "vbelt", "V belt"),
    ("check-valve", "checkvalve", "check valve"),
])
def test_a_hyphenated_compound_meets_its_joined_and_spaced_spellings(tok, hyphenated, joined,
                                                                      spaced):
    """O-ring was one token (o-r) that neither oring (ore) nor o ring (o, ring) matched."""
    tokens = set(tok(hyphenated))
    assert set(tok(joined)) <= tokens and set(tok(spaced)) <= tokens


def test_codes_and_identifiers_keep_their_tokens(tok):
    assert tok("E-17 RS-485 IL-17A hx-260") == ["e-17", "rs-485", "il-17a", "hx-260"]
    assert tok("utf8mb4 tidb_gc_life_time") == ["utf8mb4", "tidb_gc_life_tim"]
    assert tok("state-of-the-art 配置") == ["stateoftheart", "state", "art", "配置"]


def test_a_compound_in_a_path_or_an_option_stays_whole(tok):
    """A path's segment or a command-line option is an identifier, not English words."""
    assert tok("(/sql-statements/x.md) --config-file") == ["sql-statement", "x.md", "config-fil"]


@pytest.mark.parametrize(("written", "typed"), [
    ("$p_{max}$", ["p_max", "pmax", "p max", "P_max"]),
    ("$$p_r = 1.1 p_{max}$$", ["p_r", "pr", "p r"]),
    ("$x_a$", ["x_a", "xa"]),
    ("$x_{a,b}$", ["x_ab", "xab", "x b"]),
    ("$$\\sigma_{y} = E$$", ["sigma_y", "sigmay", "sigma y"]),
    ("$T_{\\mathrm{in}}$ and $p_\\max$", ["T_in", "tin", "p_max"]),
])
def test_a_latex_subscript_meets_its_plain_spellings(tok, written, typed):
    """$p_{max}$ was p, max while the question's p_max is one token (and $p_r$ p_r)."""
    tokens = set(tok(written))
    for spelling in typed:
        assert set(tok(spelling)) <= tokens, spelling


def test_a_subscript_adds_each_spelling_once_and_leaves_identifiers(tok):
    assert tok("$p_{max}$") == ["p", "max", "p_max", "pmax"]
    assert tok("$x_{i=1}$ tidb_gc_life_time a_b_c") == ["x", "1", "tidb_gc_life_tim", "a_b_c"]
