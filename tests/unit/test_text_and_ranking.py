"""Pure functions: normalisation, sentence splitting, fusion, MMR, follow-ups, support, number checks."""

from __future__ import annotations

import numpy as np
import pytest

from lcabot.answer.answerer import clean_question, resolve_followup
from lcabot.answer.ledger import split_sentences
from lcabot.answer.verify import numbers_in
from lcabot.ingest.normalize import collapse, for_search, match_key
from lcabot.models import Turn
from lcabot.search.abstention import named_terms, split_compounds, support, term_present
from lcabot.search.questions import frame
from lcabot.search.retrieval import content_terms, mmr, reciprocal_rank_fusion


def test_search_form_undoes_ligatures_hyphenation_subscripts_and_odd_spaces():
    raw = "The ﬁnal eﬄuent of the envi-\nronmental CO\u2082\u00a0emis\u00adsions"
    assert for_search(raw) == "The final effluent of the environmental CO2 emissions"
    # display form: same characters (ligatures, subscript kept), soft hyphen dropped, whitespace runs → one space
    assert collapse(raw) == "The ﬁnal eﬄuent of the envi- ronmental CO\u2082 emissions"


def test_match_key_finds_a_display_quote_in_page_text():
    page = "Any cut-off shall be\navoided in the screen-\ning study and supporting studies."
    assert match_key("Any cut-off shall be avoided in the screening study") in match_key(page)
    assert match_key("Any cut-off shall be allowed") not in match_key(page)


def test_sentences_keep_abbreviations_and_table_rows_together():
    text = "Emissions follow IPCC, e.g. methane. The total is 10.44 kg.\n|Total|10.44|100|\n|Water|0.01|7|"
    assert [s for _, s in split_sentences(text)] == [
        "Emissions follow IPCC, e.g. methane.", "The total is 10.44 kg.", "|Total|10.44|100|", "|Water|0.01|7|",
    ]


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d"]])
    assert [cid for cid, _ in fused] == ["b", "a", "d", "c"]
    assert fused[0][1] == 1 / 62 + 1 / 61


def test_mmr_skips_a_near_duplicate():
    v = np.array([[1, 0, 0], [0.999, 0.0447, 0], [0, 1, 0]], dtype=np.float32)
    assert mmr(v, [1.0, 0.95, 0.5], 2, lam=0.5) == [0, 2]
    assert mmr(v, [1.0, 0.95, 0.5], 2, lam=1.0) == [0, 1]


def test_follow_up_borrows_the_previous_question_only_when_it_needs_to():
    history = [Turn("What GWP100 do Burchart et al. report for coal gasification?", "34.8 kg CO2 eq")]
    assert resolve_followup("And with carbon capture?", history).startswith("What GWP100 do Burchart")
    standalone = "Which global sensitivity analysis methods did Groen et al. compare for LCA studies in 2016?"
    assert resolve_followup(standalone, history) == standalone
    assert resolve_followup("And with carbon capture?", []) == "And with carbon capture?"


def test_content_terms_and_names():
    assert content_terms("What is the cut-off in the PEF method?") == ["cut-off", "pef", "method"]
    assert split_compounds(["brazil-to-uk", "cut-off"]) == ["brazil", "uk", "cut", "off"]
    assert named_terms("What GWP does Pilkington's EPD declare per square metre?") == ["GWP", "Pilkington", "EPD"]
    assert named_terms("Which characterisation model does TRACI 2.1 use?") == ["TRACI"]
    # a follow-up resolved against the previous question: "And" starts a sentence, it is not a name
    assert named_terms("What does Table 2 give for Brazil? And for the organic farms?") == ["Table", "Brazil"]


def test_support_flags_unknown_names_and_weak_coverage():
    df = {"coffee": 400, "freight": 5, "pilkington": 0}
    ok = support(["coffee", "freight"], [], ["Air freight of green coffee"], df, 1000)
    assert ok.supported and ok.coverage == 1.0
    unknown = support(["coffee", "pilkington"], ["Pilkington"], ["coffee"], df, 1000)
    assert not unknown.supported and unknown.unknown == ("Pilkington",)  # the name covers its lower-case term
    weak = support(["coffee", "freight"], [], ["coffee only"], df, 1000)
    assert not weak.supported and weak.missing == ("freight",)


def test_numbers_are_read_as_printed_without_citation_markers():
    assert numbers_in("Exportation emits 10.44 kg CO2e [1] and −2.51 kg with removals [2, 3]") == [
        "10.44", "2.51",
    ]  # the 2 of CO2e is part of a formula, not a number


def test_questions_lose_chat_markup_and_must_be_reasonable():
    from lcabot.answer.answerer import MAX_QUESTION_CHARS, clean_question
    from lcabot.errors import QuestionError

    assert clean_question("<!channel> <@U123>  what cut-off\tapplies?") == "what cut-off applies?"
    for bad in ("", "  \t ", "<@U123>", "What is the cut-off? " * 200):
        with pytest.raises(QuestionError):
            clean_question(bad)
    assert len(clean_question("x" * MAX_QUESTION_CHARS)) == MAX_QUESTION_CHARS


def test_sub_questions_are_capped():
    from lcabot.search.questions import MAX_PARTS, sub_questions

    assert sub_questions("What functional unit did they use, and which standard framed the scope?") == [
        "What functional unit did they use", "which standard framed the scope",
    ]
    assert len(sub_questions("What is the cut-off rule in PEF? " * 50)) == MAX_PARTS


def test_settings_name_the_bad_variable():
    from lcabot.config import Settings

    with pytest.raises(ValueError, match="LCABOT_TOP_K must be a number, got 'abc'"):
        Settings.from_env({"LCABOT_TOP_K": "abc"})
    assert str(Settings.from_env({"LCABOT_HOME": ""}).home) == ".lcabot"


def test_a_table_is_embedded_by_its_words_not_its_numbers():
    """Nab & Maslin 2020, Table 2 (p. 11): the model's 256 word pieces go to caption, headers and row labels."""
    from lcabot.ingest.chunking import embedding_text
    from lcabot.models import Chunk, PageSpan

    text = ("TABLE 2 Carbon footprint at each phase\n\n|Conventional|Col2|Col3|\n|---|---|---|\n"
            "|Emission source|kg CO2e kg–1 green coffee|%|\n|Exportation|||\n|Airport to airport|10.42|100|\n"
            "|Total|10.44|100|\n|Total|0.19|100|")
    chunk = Chunk("c", "d", 0, ("6.3 Growing, milling, and exportation phases",), 11, 11, "11", "11", "table", text,
                  text, (PageSpan(0, 11),))
    assert embedding_text(chunk) == (
        "6.3 Growing, milling, and exportation phases TABLE 2 Carbon footprint at each phase Conventional | "
        "Emission source | kg CO2e kg–1 green coffee | Exportation | Airport to airport | Total")


def test_a_run_of_names_is_not_a_statement():
    from lcabot.answer.ledger import is_name_run

    # scraped link anchors, ec-2024-hydrogen-bank-pilot-auction-grants.pdf p. 2, and an affiliation line
    assert is_name_run("The Innovation FundEU Emissions Trading System The European Hydrogen Bank The first renewable "
                       "hydrogen auctionEuropean Climate, Infrastructure and Environment Executive Agency (CINEA)")
    assert is_name_run("European Commission Joint Research Centre Institute for Environment and Sustainability")
    # statements: a sentence end, a number, or mostly lower-case words
    assert not is_name_run("The European Hydrogen Bank Aims To Unlock Private Investment In The EU.")
    assert not is_name_run("Eutrophication, Accumulated Exceedance mol N eq (AE)")
    assert not is_name_run("Grey2Green-II Petrogal S.A. Portugal Bid Price EUR 84,227,910")
    assert not is_name_run("the total amount of support comes to EUR million over ten years and more")


def test_an_elliptic_part_keeps_the_questions_closing_phrase_and_sensitivity_analysis_is_no_scenario():
    """"… fastest and which slowest in Groen et al. 2016" asks of the slowest method in that paper; "global
    sensitivity analysis" is its topic, not a sensitivity case."""
    asked = frame("Which global sensitivity analysis method was fastest and which slowest in Groen et al. 2016?")
    assert asked.parts == ("Which global sensitivity analysis method was fastest",
                           "Which global sensitivity analysis method was slowest in Groen et al. 2016")
    assert asked.scenario == ()
    assert frame("What is the GWP in the sensitivity case with a 50/50 allocation?").scenario == ("sensitivity",)


def test_contractions_are_read_and_equivalent_stems_stand_in():
    """Slack users write "what's"; "are the use phase and end-of-life included" is answered by "… exclude downstream
    emissions related to the product use and end-of-life stages" (Pathfinder Framework p. 18)."""
    assert clean_question("Burchart: what's the GWP per kg H2?") == "Burchart: what is the GWP per kg H2?"
    assert term_present("phase", "the product use and end-of-life stages")
    assert term_present("included", "exclude downstream emissions")
    assert term_present("leave", "can be excluded")
    assert not term_present("phase", "the product use and end-of-life")


def test_review_35_a_table_reference_a_fraction_and_a_plural_asked_for():
    """JRC ILCD compliance rules p. 10: "The detailed entry-level requirements are found in Tab. 3." is one sentence;
    "what default emission fractions shall be used to model pesticides" asks for percentages (PEFCR guidance p. 72:
    "90% emitted to the agricultural soil compartment, 9% emitted to air and 1% emitted to water"), not kg CO2e;
    "what are the three data quality levels" asks for data quality levels."""
    from lcabot.search.questions import asked_noun

    assert [s for _, s in split_sentences("It is a requirement. The detailed entry-level requirements are found in "
                                          "Tab. 3. This results in one level more.")] == [
        "It is a requirement.", "The detailed entry-level requirements are found in Tab. 3.",
        "This results in one level more."]
    assert frame("According to the PEFCR Guidance, what default emission fractions shall be used to model pesticides "
                 "applied on the field?").quantity == "%"
    assert asked_noun("In the ILCD Data Network compliance rules, what are the three data quality levels for process "
                      "data sets") == "data quality levels"
    assert asked_noun("What are the results?") == "results"
    assert asked_noun("What are they doing about it?") == ""


def test_a_step_of_the_studys_own_method_citing_its_data_is_not_another_works_result():
    """Nab & Maslin 2020, p. 8: the farm locations, ports and distances are the study's own steps, citing the data
    and tools used; "… the sustainable case studies varied from the conventional ones in three ways: …" after them is
    the study's own design, not a report of the works cited."""
    from lcabot.answer.gates import reports_other_work

    assert not reports_other_work("The nearest ports and international airports to these coffee farms were then "
                                  "identified using sea‐distances.org (2019) and Google Maps (2019).")
    assert not reports_other_work("The coffee farm locations were placed at random points in Sao Paulo (Brazil) and "
                                  "Buôn Ma Thuột (Vietnam), the biggest coffee producing regions in the two countries "
                                  "(ICO, 2019).")
    assert reports_other_work("Previous studies found that 3.05 kg CO2e are emitted in the processing phase "
                              "(Killian et al., 2013).")
    assert reports_other_work("The GHG emissions were estimated at 0.46 kg CO2-eq./kg H2 by Smith et al. (2019).")


def test_an_amount_asked_with_what_is_is_no_term_to_define():
    """"what is the annual apple harvest there" asks an amount ("The annual harvest is around 950,000 tonnes",
    Wikipedia, South Tyrolean apple, p. 2), not what a harvest is; "what is the functional unit" asks a term."""
    from lcabot.search.questions import asked_term

    assert asked_term("what is the annual apple harvest there") == ""
    assert asked_term("and what is the total budget") == ""
    assert asked_term("what is the functional unit") == "functional unit"


def test_review_37_which_report_and_a_calculated_total_are_asked_right():
    """Review 37: "which IPCC report must the GWP characterization factors come from" asks for a report (Pathfinder
    Framework p. 18, "… derived from the IPCC Assessment Report AR 5"), not a value in kg CO2e; "what total carbon
    footprint was calculated for …" asks for the result (Nab & Maslin 2020, p. 12, "16.04 kg CO2e kg–1 green
    coffee"), not how it was calculated; "how was the carbon footprint calculated" still asks the procedure."""
    from lcabot.search.questions import kind_of

    assert frame("Under the WBCSD Pathfinder Framework, which IPCC report must the GWP characterization factors come "
                 "from?").quantity == ""
    assert kind_of("Which IPCC assessment report does the Pathfinder Framework require for GWP factors?") != "numeric"
    assert kind_of("What is the GWP of fossil methane?") == "numeric"
    assert kind_of("In Nab and Maslin's coffee LCA, what total carbon footprint was calculated for conventional "
                   "coffee from Vietnam?") == "numeric"
    assert kind_of("How was the carbon footprint calculated?") == "procedure"


def test_a_later_version_than_the_documents_own_is_one_still_to_come():
    """The Pathfinder Framework v1 prints "Included in Framework Version 2" in its roadmap figure (p. 8): a version 1
    document names version 2 only as one still to come; its own version, however printed, is held."""
    from lcabot.search.abstention import absent_from_passages

    passages = ["Pathfinder Framework | wbcsd pathfinder framework v1 Overview of general setup > 2.3 Version ● Data "
                "semantics and standards ● Additional elements tbc Included in Framework Version 2 Included in "
                "Framework Version 1"]
    assert absent_from_passages("What does the Pathfinder Framework Version 2 require?", passages,
                                lambda _: True) == ["Version 2 other than as one still to come"]
    for asked in ("Version 1.0", "Version 1", "v1"):
        assert absent_from_passages(f"What does the Pathfinder Framework {asked} require?", passages,
                                    lambda _: True) == []


def test_an_impersonal_it_has_also_been_suggested_starts_its_own_sentence():
    """Finnveden et al. 2022, p. 4: the authors' "As discussed above, it seems reasonable that system expansion and
    substitution can be compatible with ALCA." is quoted alone, not joined to the cited claim after it."""
    from lcabot.answer.gates import reports_other_work
    from lcabot.answer.ledger import quotable_units
    from lcabot.models import Chunk, PageSpan

    text = ("As discussed above, it seems reasonable that system expansion and substitution can be\ncompatible with "
            "ALCA. It has also been suggested that there is no strict delimitation of\naverage data for ALCA and "
            "marginal for CLCA [4].")
    chunk = Chunk(chunk_id="c", doc_id="d", ordinal=0, section_path=("4 Discussion",), page_start=4, page_end=4,
                  page_label_start="4", page_label_end="4", kind="text", text=text, search_text=text,
                  page_spans=(PageSpan(0, 4),))
    units = quotable_units(chunk)
    assert [u.text for u in units] == [
        "As discussed above, it seems reasonable that system expansion and substitution can be compatible with ALCA.",
        "It has also been suggested that there is no strict delimitation of average data for ALCA and marginal for "
        "CLCA [4]."]
    assert [reports_other_work(u.text) for u in units] == [False, True]


def test_a_sentence_limiting_the_one_before_it_is_joined_to_it_however_long():
    """Finnveden et al. 2022, p. 2: the case where "the 100 % rule can be valid" (388 characters with the sentence it
    goes on with) is quoted with "This is, however, a special case and not a general aspect of ALCA."; a sentence
    merely mentioning an exception is not joined beyond the usual length."""
    from lcabot.answer.ledger import quotable_units
    from lcabot.models import Chunk, PageSpan

    case = ("Another example where the 100 % rule could be valid is for a company that may want to define a 100 % rule "
            "to account for ALCAs of all products that they sell and make sure that the sum amounts to the total "
            "impact of the company. In this case, they have defined which products to study, and they can define "
            "rules for system boundaries, allocation, etc. so that the 100 % rule can be valid.")
    text = f"{case} This is, however, a special case and not a general aspect of ALCA."
    chunk = Chunk(chunk_id="c", doc_id="d", ordinal=0, section_path=("2.1",), page_start=2, page_end=2,
                  page_label_start="2", page_label_end="2", kind="text", text=text, search_text=text,
                  page_spans=(PageSpan(0, 2),))
    assert [u.text for u in quotable_units(chunk)] == [text]
