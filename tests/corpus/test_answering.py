"""Answers from the real corpus: page-accurate citations, verified quotes, abstention, follow-ups."""

from __future__ import annotations

import re

from lcabot.ingest.normalize import match_key
from lcabot.models import Turn

COFFEE = "nab-maslin-2020-coffee-carbon-footprint.pdf"
BURCHART = "burchart-2023-hydrogen-coal-gasification-lca.pdf"


def _assert_citations_verbatim(answer, corpus_index, sources):
    for c in answer.citations:
        page_text = corpus_index.page_text(sources[c.source], c.page)
        if "–" in c.page_label:  # a quote continued across a page break ("pp. 4–5") is read on both pages
            page_text += " " + corpus_index.page_text(sources[c.source], c.page + 1)
        assert match_key(c.quote) in match_key(page_text), (c.source, c.page, c.quote)


def test_coffee_stage_values_are_cited_to_pdf_page_11(answerer, corpus_index, sources):
    answer = answerer.ask(
        "In Nab & Maslin's Table 2, what are the conventional Brazil emissions for growing, milling and "
        "exportation in kg CO2e per kg green coffee?"
    )
    assert not answer.abstained
    coffee_pages = {c.page for c in answer.citations if c.source == COFFEE}
    assert 11 in coffee_pages
    page_11 = next(c.number for c in answer.citations if c.source == COFFEE and c.page == 11)
    rows = " ".join(line for line in answer.text.split("\n") if line.endswith(f"[{page_11}]"))
    # the phases' totals for conventional Brazil, each read with its panel, group, sub-table and unit
    for phase, total in (("Growing", "1.01"), ("Milling", "0.10"), ("Exportation", "10.44")):
        assert f"Table 2 (Conventional, {phase}): " in rows
        assert f"Total (Brazil): {total} kg CO2e kg–1 green coffee" in rows
    assert "(Sustainable" not in rows  # the lower panel is the other scenario
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_cut_off_answer_quotes_section_7_6_on_page_61(answerer, corpus_index, sources):
    answer = answerer.ask(  # dev-set question D001
        "If we want to leave a few minor processes out of a PEF model, what cut-off threshold is allowed, and are "
        "any impact categories ignored when applying it?"
    )
    assert not answer.abstained
    cited = {(c.source, c.page) for c in answer.citations}
    assert ("ec-pefcr-guidance-v6.3.pdf", 61) in cited
    assert any("1%" in c.quote or "1 %" in c.quote for c in answer.citations)
    assert any(c.section and c.section.startswith("7.6") for c in answer.citations)
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_out_of_scope_question_abstains_without_citations(answerer):
    answer = answerer.ask("What GWP does Pilkington's EPD declare per square metre of 4 mm float glass?")
    assert answer.abstained
    assert answer.citations == ()
    assert "20 documents" in answer.searched


def test_follow_up_is_resolved_against_the_earlier_turn(answerer, corpus_index, sources):
    question = ("What GWP100 per kg of hydrogen do Burchart et al. get for Shell coal gasification "
                "when the captured CO2 is not stored?")
    first = answerer.ask(question)
    follow = answerer.ask("And with carbon capture and storage?", history=[Turn(question, first.text)])
    assert not follow.abstained
    # the answer's statements come from Burchart et al.; graph facts may add citations of related passages
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", follow.text)}
    assert cited and {follow.citations[n - 1].source for n in cited} == {BURCHART}
    assert {c.source for c in follow.citations} - {BURCHART} <= {n for f in follow.facts for n in (
        follow.citations[i - 1].source for i in f.citations)}
    _assert_citations_verbatim(follow, corpus_index, sources)


def test_ask_json_shape(answerer):
    data = answerer.ask("What is the so-called 100% rule in attributional LCA?").to_json()
    assert set(data) == {"answer", "abstained", "citations", "facts", "retrieval_mode"}
    assert data["retrieval_mode"] == "rag+graph"  # the default, with the corpus graph built
    assert all(set(f) == {"subject", "relation", "object", "citations"} and f["citations"] for f in data["facts"])
    citation = data["citations"][0]
    assert set(citation) == {"source", "title", "section", "page", "page_label", "quote"}
    assert citation["source"] == "finnveden-2022-attributional-lca-debates.pdf"


def test_functional_unit_answer_states_this_studys_unit_not_a_cited_rule(answerer, corpus_index, sources):
    """Demo question D017: the lead must be the study's own functional unit (p. 7), not the sentence about
    functional units in general that cites DEFRA and BSI (2011)."""
    answer = answerer.ask("What functional unit did Nab & Maslin use for their coffee carbon footprint, and which "
                          "standard framed the scope?")
    assert not answer.abstained
    assert "1 kg of green Arabica coffee beans" in answer.text and "PAS 2050:2011" in answer.text
    assert "must be defined in terms of a functional unit" not in answer.text
    assert {(c.source, c.page) for c in answer.citations} >= {(COFFEE, 7)}
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_a_value_question_leads_with_the_value_in_the_unit_asked_for(answerer, corpus_index, sources):
    """Demo question D022 (issue 13): the lead is Burchart et al.'s Table 7 row on p. 12, read with its headers and
    unit, "Total (H2 Non-Seq.) 34.8 kg CO2 eq"; the p. 13 sentence stating it ("34.8 kg CO2-eq./kg H2 for non-seq.",
    BM25 rank 1, embedding rank 24) is read too."""
    answer = answerer.ask("What GWP100 per kg of hydrogen do Burchart et al. get for Shell coal gasification when "
                          "the captured CO2 is not sequestered?")
    assert not answer.abstained
    lead = answer.text.split("\n", 1)[0]
    assert lead.startswith("Table 7: Greenhouse gases (GWP 100a): Total (H2 Non-Seq.) 34.8 kg CO2 eq;")
    number = int(re.search(r"\[(\d+)\]", lead).group(1))
    assert (answer.citations[number - 1].source, answer.citations[number - 1].page) == (BURCHART, 12)
    assert "34.8 kg CO2-eq./kg H2 for non-seq." in answer.text
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_a_duration_question_quotes_the_sentence_with_the_duration(answerer, corpus_index, sources):
    """PEFCR guidance v6.3, 8.5.3 (p. 153): "shall not exceed three years" answers "how long … valid?"."""
    answer = answerer.ask("Once an EF study has been verified, how long do the verification report and validation "
                          "statement stay valid?")
    assert "shall not exceed three years starting from their first issue date" in answer.text.split("\n", 1)[0]
    assert answer.citations[0].page == 153 and answer.citations[0].section.startswith("8.5.3")
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_a_country_the_quoted_passages_never_name_is_not_answered(answerer):
    """Nab & Maslin name Colombia once (p. 3, where Arabica is grown); their footprints are for Brazil and Vietnam."""
    answer = answerer.ask("What is the carbon footprint of conventional Arabica coffee grown in Colombia and "
                          "exported to the United Kingdom?")
    assert answer.abstained and answer.citations == ()
    assert "Colombia" in answer.text and "15.33" not in answer.text


def test_a_statement_the_paper_calls_a_misunderstanding_is_never_quoted_as_its_view(answerer, corpus_index, sources):
    """Finnveden et al. 2022, p. 1: "3) System expansion, and/or substitution, cannot be used in attributional LCA"
    is one of the six statements the paper discusses as potential misunderstandings."""
    answer = answerer.ask("According to Finnveden et al. (2022), can system expansion or substitution be used in "
                          "attributional LCA?")
    assert not answer.abstained
    assert "cannot be used in attributional LCA" not in answer.text
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_a_parameter_named_by_its_symbol_is_what_the_question_asks_about(answerer, corpus_index, sources):
    """PEFCR guidance v6.3: "A: allocation factor of burdens and credits …" (7.18.2, p. 113) and "0.2 ≤ A ≤ 0.8"
    (7.18.3, p. 114); the Circular Footprint Formula the question also names is only where A is."""
    answer = answerer.ask("What is the A factor in the Circular Footprint Formula, and what range must it stay in?")
    assert not answer.abstained and not answer.notes
    first, second = answer.text.split("\n")[:2]
    assert first.startswith("“A: allocation factor of burdens and credits between supplier and user of recycled")
    assert "In PEF studies the A factor values shall be in the range 0.2 ≤ A ≤ 0.8" in second
    assert [(c.page, c.section.split()[0]) for c in answer.citations[:2]] == [(113, "7.18.2"), (114, "7.18.3")]
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_a_list_is_quoted_whole_under_its_lead_in(answerer, corpus_index, sources):
    """PEFCR guidance v6.3, 7.18.3 (p. 114): the three A values by market situation, after "This means:"."""
    answer = answerer.ask("Which A values does the PEFCR guidance give for different market situations of "
                          "recyclable materials?")
    line = next(line for line in answer.text.split("\n") if "A=0.2." in line)
    assert line.startswith("Under “The driver to determine the values of the A factor is the analysis of the market "
                           "situation. This means:”: “● A=0.2. Low offer")
    assert line.index("A=0.2.") < line.index("A=0.8.") < line.index("A=0.5.")
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_rows_of_one_table_are_read_together(answerer, corpus_index, sources):
    """PEFCR guidance v6.3, Table 6 (p. 54): when rows of one table answer, the table's rows are shown together
    (the five life cycle stages with their shares), not the three that happened to rank best."""
    answer = answerer.ask("In the PEFCR guidance's example of most relevant life cycle stages for climate change, "
                          "what share does each stage contribute?")
    line = next(line for line in answer.text.split("\n") if line.startswith("Table 6: "))
    assert ("Raw material acquisition and pre-processing: Contribution 50.3% · Production of the main product: "
            "Contribution 21.2% · Product distribution and storage: Contribution 16.5%") in line
    assert any(c.page == 54 for c in answer.citations)
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_a_section_two_hits_share_is_read_from_its_start_finnveden_2_1(answerer, corpus_index, sources):
    """The two chunks a question about the 100 % rule retrieves are the end of Finnveden et al.'s section 2.1; its
    verdict is in the chunk before them."""
    answer = answerer.ask("What is the so-called 100% rule in attributional LCA, and do Finnveden et al. think it "
                          "holds?")
    assert not answer.abstained
    finnveden = "finnveden-2022-attributional-lca-debates.pdf"
    assert "The 100 % rule is thus not correct if defined as above." in answer.text
    # one source line per (document, page): the verdict's statement is numbered with p. 2's line
    verdict = next(line for line in answer.text.splitlines() if "not correct if defined as above" in line)
    number = int(re.search(r"\[(\d+)\]$", verdict).group(1))
    assert (answer.citations[number - 1].source, answer.citations[number - 1].page) == (finnveden, 2)
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_of_the_two_hydrogen_bank_news_items_the_pilot_auction_answers_for_it(answerer):
    answer = answerer.ask("In the European Hydrogen Bank pilot auction, what was the total support awarded to the "
                          "winning projects?")
    assert not answer.abstained
    assert {c.source for c in answer.citations} == {"ec-2024-hydrogen-bank-pilot-auction-grants.pdf"}
    assert "€40 billion" not in answer.text and "61 bids" not in answer.text  # the second auction's news item


def test_the_first_auction_is_the_item_whose_title_says_first_and_its_total_leads(answerer):
    """"First" is in neither news item's file name; the pilot item's title is "Winners of first EU-wide renewable
    hydrogen auction …". Its p. 1 states the total; the next auction's EUR 1.2 billion budget (p. 2) is not it."""
    answer = answerer.ask("How much support in total did the six projects of the first European Hydrogen Bank "
                          "auction receive?")
    assert not answer.abstained
    assert {c.source for c in answer.citations} == {"ec-2024-hydrogen-bank-pilot-auction-grants.pdf"}
    lead = answer.text.split("\n", 1)[0]
    assert "The total amount of support comes to EUR 694 521 237" in lead
    assert answer.citations[0].page == 1


def test_one_projects_bid_price_leads_from_its_row_of_the_uncaptioned_bid_table(answerer):
    """The pilot auction's bid table (p. 2) has no caption; eNRG Lahti's row gives "Bid price (EUR/kg) 0.37" under
    its headers, not a header line run together with the next row."""
    answer = answerer.ask("What bid price did eNRG Lahti offer in the Hydrogen Bank pilot auction?")
    assert not answer.abstained
    lead = answer.text.split("\n", 1)[0]
    assert "eNRG Lahti" in lead and "Bid price (EUR/kg) 0.37" in lead
    assert answer.citations[0].source == "ec-2024-hydrogen-bank-pilot-auction-grants.pdf"
    assert answer.citations[0].page == 2


def test_a_question_on_the_second_auction_is_not_answered_with_the_firsts_grants(answerer):
    """The second auction's item (7 March 2025) reports 61 bids and recalls "In its first auction in 2023 €694
    million in grants" (p. 2); neither that sentence nor the pilot auction's item answers for the second auction."""
    answer = answerer.ask("Which projects won the second European Hydrogen Bank auction, and at what bid prices?")
    assert {c.source for c in answer.citations} <= {"ec-2025-hydrogen-bank-second-auction-bids.pdf"}
    assert "694" not in answer.text


def test_a_glossary_definition_leads_a_definition_question_pefcr_p16(answerer):
    answer = answerer.ask("How does the PEFCR guidance define company-specific data?")
    lead = answer.text.split("\n", 1)[0]
    assert lead.startswith("“Company-specific data – It refers to directly measured or collected data from one or "
                           "multiple facilities (site-specific data)")
    assert answer.citations[0].page_label == "16"
    assert answer.citations[0].section == "4 Terms and definitions"


def test_a_papers_argument_is_quoted_from_its_section_without_citation_markers_finnveden_2_4(answerer):
    """Finnveden et al. 2022 argue in 2.4 (p. 4) with numbered citations; the abstract's list of statements they
    call misunderstandings ("4) Attributional LCA leads to more truncation errors …") is never the answer."""
    answer = answerer.ask("What do Finnveden et al. say about truncation errors in attributional versus "
                          "consequential LCA?")
    lead = answer.text.split("\n", 1)[0]
    assert lead.startswith("“When conducting an LCA, it is difficult to include all relevant processes, which can "
                           "lead to truncation errors.”")
    assert answer.citations[0].section == "2.4 Truncation and aggregation errors"
    assert answer.citations[0].page_label == "4"
    assert "It may, however, be the other way around" in answer.text
    assert "4) Attributional LCA leads to more truncation errors" not in answer.text


def test_a_comparison_of_two_codes_quotes_what_each_code_is_ilcd_p7(answerer):
    """JRC ILCD compliance rules p. 7 set out both subtypes of Situation C under one lead-in; p. 9's table of
    compliance data sets only names them."""
    answer = answerer.ask("In the ILCD Data Network compliance rules, what is the difference between goal Situation "
                          "C1 and Situation C2?")
    assert ('Situation C1 "Accounting including external benefits": Includes existing benefits outside the analysed '
            'system') in answer.text
    assert 'Situation C2 "Accounting excluding external benefits": Does not include existing benefits' in answer.text
    assert "7" in {c.page_label for c in answer.citations}


def test_the_codes_asked_about_lead_with_what_each_is_wherever_they_rank_ilcd_p7(answerer):
    """Asked as a practitioner types it ("goal situation C1 and C2"), p. 9's table of compliance data sets, which
    only names C1 and C2 beside file names and version numbers, outranks p. 7; the answer still leads with p. 7."""
    answer = answerer.ask("In the ILCD Data Network compliance rules, what's the difference between goal situation C1 "
                          "and C2?")
    lead = answer.text.split("\n", 1)[0]
    assert 'Situation C1 "Accounting including external benefits": Includes existing benefits outside the analysed ' \
           'system (e.g. credits existing recycling benefits)' in lead
    assert 'Situation C2 "Accounting excluding external benefits": Does not include existing benefits outside the ' \
           'analysed system' in lead
    assert answer.citations[0].page_label == "7"


def test_the_range_of_a_parameter_named_by_symbol_answers_what_values_it_takes_pefcr_p114(answerer):
    """PEFCR guidance 7.18.3 (p. 114): "… the A factor values shall be in the range 0.2 ≤ A ≤ 0.8 …" and the
    procedure ending "the A value shall be set equal to 0.5"; neither part is reported as not stated."""
    answer = answerer.ask("What values can the A factor in the Circular Footprint Formula take under the PEFCR "
                          "Guidance, and what value applies when no specific A value is available?")
    assert "In PEF studies the A factor values shall be in the range 0.2 ≤ A ≤ 0.8" in answer.text
    assert "If a material specific A value is not available, the A value shall be set equal to 0.5" in answer.text
    assert "114" in {c.page_label for c in answer.citations}
    assert not [n for n in answer.notes if "do not state" in n]


def test_emissions_per_functional_unit_are_a_value_question_burchart_p1(answerer):
    answer = answerer.ask("In Burchart et al. 2023, what are the GHG emissions per functional unit for hydrogen from "
                          "coal gasification with and without CO2 sequestration?")
    lead = answer.text.split("\n", 1)[0]
    assert "reduced by approximately 44% from 34.8 kg CO2-eq to 19.5 kg CO2-eq" in lead
    assert answer.citations[0].source == BURCHART and answer.citations[0].page == 1


def test_a_two_part_value_question_leads_with_the_sentence_giving_both_values(answerer):
    """Burchart et al. 2023, abstract p. 1: "… can be reduced by approximately 44% from 34.8 kg CO2-eq to 19.5 kg
    CO2-eq …" answers both parts; neither part is reported as not stated ("what is the relative reduction" is about
    the GWP the part before it names)."""
    answer = answerer.ask("In Burchart et al. 2023, what is the GWP of hydrogen from coal gasification with and "
                          "without CO2 sequestration, and what is the relative reduction?")
    assert not answer.abstained
    lead = answer.text.split("\n", 1)[0]
    assert "reduced by approximately 44% from 34.8 kg CO2-eq to 19.5 kg CO2-eq" in lead
    assert answer.citations[0].source == BURCHART and answer.citations[0].page == 1
    assert answer.notes == ()


def test_a_default_transport_scenario_is_answered_with_its_distances(answerer):
    """PEFCR guidance v6.3, 7.14.2, p. 97: "For all other products from supplier to factory …" 130 km by truck,
    240 km by train, 270 km by ship."""
    answer = answerer.ask('What default transport scenario does the PEFCR guidance prescribe from supplier to factory '
                          'for "all other products"?')
    lead = answer.text.split("\n", 1)[0]
    assert "For all other products from supplier to factory" in lead
    assert all(d in lead for d in ("130 km by truck", "240 km by train", "270 km by ship"))
    assert answer.citations[0].page == 97


def test_a_value_the_library_gives_for_another_product_is_not_an_answer_for_this_one(answerer):
    """The library describes South Tyrol's orchards (Wikipedia extract) but gives no footprint of its apples."""
    answer = answerer.ask("What is the carbon footprint per kg of South Tyrolean apples?")
    assert answer.abstained
    assert answer.text.startswith("I found no value in kg CO2e for this")
    coffee = answerer.ask("What is the carbon footprint of sustainable coffee from Vietnam?")
    assert not coffee.abstained
    assert "Sustainable coffee from Vietnam (3.64 kg CO2e kg–1 green)" in coffee.text


def test_a_named_papers_functional_unit_leads_the_answer(answerer, corpus_index, sources):
    """Burchart et al. 2023, 2.1, p. 5: "the FU is 1 kg of hydrogen at 88 MPa", found inside the paper by the question
    without its title words; Moretti et al. 2020, 2.1, p. 2: "the functional unit (FU) is defined as 1 kg of
    polypropylene"."""
    burchart = answerer.ask("What functional unit did Burchart et al. 2023 use for the coal gasification hydrogen LCA?")
    # the choice is quoted with the reasons it is drawn from, across the page break (pp. 4-5)
    assert burchart.text.split("\n", 1)[0] == (
        "“According to the FC-Hy Guide, the functional unit should be the MJ of energy contained in hydrogen. However, "
        "as shown by technological and settlement solutions at hydrogen refueling stations this fuel is sold in mass "
        "units. Therefore, for the present analysis, the FU is 1 kg of hydrogen at 88 MPa, which is the pressure at "
        "the filling station.” [1]")
    first = burchart.citations[0]
    assert (first.source, first.page, first.page_label) == (BURCHART, 4, "4–5")
    moretti = answerer.ask("What functional unit does Moretti et al. use for UCO-based polypropylene?")
    lead = moretti.text.split("\n", 1)[0]
    assert "the functional unit (FU) is defined as 1 kg of polypropylene" in lead
    assert (moretti.citations[0].source, moretti.citations[0].page) == ("moretti-2020-uco-polypropylene-lca.pdf", 2)
    _assert_citations_verbatim(burchart, corpus_index, sources)


def test_a_study_called_by_its_subject_is_the_one_asked_about(answerer, corpus_index, sources):
    """"the coffee study" is Nab & Maslin 2020 (its file name holds "coffee"): its functional unit is p. 7's "1 kg of
    green Arabica coffee beans", not the PEFCR guidance's definition of functional units (p. 44); its reference
    list (pp. 17-19) names other works and is never quoted."""
    fu = answerer.ask("What is the functional unit of the coffee study?")
    assert fu.text.split("\n", 1)[0].startswith("“The functional unit defined for this study was 1 kg of green "
                                                  "Arabica coffee beans")
    assert (fu.citations[0].source, fu.citations[0].page) == (COFFEE, 7)
    assert {c.source for c in fu.citations} == {COFFEE}
    boundary = answerer.ask("What system boundary does the coffee study use?")
    assert not [c for c in boundary.citations if c.page >= 17]
    assert "A science guide to coffee freshness" not in boundary.text
    _assert_citations_verbatim(fu, corpus_index, sources)


def test_a_value_the_study_draws_from_a_cited_figure_is_its_own(answerer):
    """Nab & Maslin 2020, p. 12: "With a drink containing approximately 18 g of green coffee (Starbucks Coffee
    Company, 2019) … Thus, the carbon footprint found in the LCA is on average 0.28 and 0.06 kg CO2e per espresso
    beverage …": the second sentence is the paper's own result, not the cited work's."""
    answer = answerer.ask("What carbon footprint per espresso does the coffee paper arrive at for conventional and "
                          "for sustainable coffee?")
    assert answer.text.split("\n", 1)[0].startswith("“Thus, the carbon footprint found in the LCA is on average 0.28 "
                                                    "and 0.06 kg CO2e per espresso beverage")
    assert (answer.citations[0].source, answer.citations[0].page) == (COFFEE, 12)


def test_an_edition_named_by_its_file_name_and_a_value_written_out_are_answered(answerer):
    """"v6.3" is in the PEFCR guidance's file name only (ec-pefcr-guidance-v6.3.pdf), 7.6 Cut-Off is p. 61; Our
    World in Data writes "60 kilograms of greenhouse gases (CO2-equivalents)" for beef (p. 1)."""
    cut_off = answerer.ask("What cut-off rule does the PEFCR Guidance v6.3 allow for excluding processes?")
    assert not cut_off.abstained
    assert "1% cut-off for all impact categories" in cut_off.text and cut_off.citations[0].page == 61
    food = answerer.ask("Per Our World in Data (Ritchie 2020), what are GHG emissions per kg of beef vs peas?")
    assert not food.abstained
    assert "60 kilograms of greenhouse gases (CO2-equivalents)" in food.text
    assert "While peas emits just 1 kilogram per kg." in food.text


def test_a_sentence_quoted_with_the_one_before_it_is_not_quoted_again(answerer):
    """Finnveden et al. 2022, 2.1, p. 2: "Another example where the 100 % rule could be valid …" is quoted with the
    sentence after it that refers back ("In this case, they have defined …"), once; the verdict "The 100 % rule is
    thus not correct" is quoted."""
    answer = answerer.ask("What is the so-called 100% rule in attributional LCA, and do Finnveden et al. think it "
                          "holds?")
    assert answer.text.count("Another example where the 100 % rule could be valid") == 1
    assert "The 100 % rule is thus not correct if defined as above." in answer.text


def test_a_named_section_is_answered_from_its_text_not_from_a_pointer_to_it(answerer):
    """Pathfinder Framework v1, 7.2.1 Time period, p. 33: "Emissions shall be calculated and disclosed on an annual
    basis" and data "more than five years old" flagged; the 7.1 list item "(see Sections 7.2.1 and 7.2.2)" points
    to the section and is not its answer."""
    answer = answerer.ask("What does section 7.2.1 of Pathfinder require about the time period of shared PCF data?")
    assert "disclosed on an annual basis" in answer.text and "more than five years old" in answer.text
    assert "(see Sections 7.2.1 and 7.2.2)" not in answer.text


def test_a_sentence_naming_its_subject_as_this_is_quoted_with_the_one_before_it_pefcr_p95(answerer, corpus_index,
                                                                                           sources):
    """PEFCR guidance 7.14.1.1, p. 95: "● If the load is mass limited: a default utilisation ratio of 64% shall be
    used. This utilisation ratio includes empty return trips. Therefore, empty returns shall not be modelled
    separately." Quoted alone, "This utilisation ratio …" answers nothing; "what default … ratio" asks for a
    value."""
    answer = answerer.ask("What default utilisation ratio does the PEFCR Guidance prescribe for mass-limited truck "
                          "transport, and does it include empty returns?")
    lead = answer.text.split("\n", 1)[0]
    assert "If the load is mass limited: a default utilisation ratio of 64%" in lead
    assert "This utilisation ratio includes empty return trips. Therefore, empty returns shall not be modelled " \
           "separately." in lead
    assert (answer.citations[0].section, answer.citations[0].page) == ("7.14.1.1 Truck transport", 95)
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_another_product_or_an_edition_the_library_lacks_is_not_answered(answerer):
    """Moretti et al. 2020 assess UCO-based polypropylene only (Table 4, p. 6: 0.63 and −2.51 kg CO2eq per kg PP),
    so "1 kg of polyethylene made from used cooking oil" is not answered with them; the library has the pilot
    (first) and the second European Hydrogen Bank auctions, not the third's winners."""
    pe = answerer.ask("What is the cradle-to-gate climate change impact of 1 kg of polyethylene made from used "
                      "cooking oil?")
    assert pe.abstained and "never mention polyethylene" in pe.text and pe.citations == ()
    third = answerer.ask("What was the total grant amount awarded to the winners of the third European Hydrogen "
                         "Bank auction?")
    assert third.abstained and "never mention the third auction" in third.text
    pp = answerer.ask("What is the cradle-to-gate climate change impact of 1 kg of polypropylene made from used "
                      "cooking oil?")
    # the table's climate change rows, with their units, and not its other impact categories
    assert pp.text.split("\n", 1)[0] == (
        "Table 4: Climate change (without biogenic carbon removal (BCR)): Value 0.63 kg CO2eq; Normalized and "
        "weighted scores (Total 100%) 28% · Climate change, with biogenic carbon removal (BCR): Value −2.51 kg "
        "CO2eq; Normalized and weighted scores (Total 100%) Not applicable [1]")
    assert (pp.citations[0].source, pp.citations[0].page) == ("moretti-2020-uco-polypropylene-lca.pdf", 6)


def test_a_part_answered_in_other_words_is_not_reported_as_not_stated_pathfinder(answerer):
    """Pathfinder Framework v1, p. 13: "• The boundary of the Framework is a cradle-to-gate PCF, comprising all stages
    of the product life cycle (including transportation), but excluding downstream emissions …" (the summary's
    bullet, read whole since its bullet is its own item) and 4.3 Boundary, p. 18: "The boundary of the Pathfinder
    Framework … is a cradle-to-gate PCF" answer what boundary it "requires"; 4.2, p. 18: the 100-year GWP factors
    from IPCC AR5."""
    answer = answerer.ask("What system boundary does the WBCSD Pathfinder Framework Version 1 require for product "
                          "carbon footprints, and which GWP characterization factors must be used?")
    assert answer.text.startswith("“• The boundary of the Framework is a cradle-to-gate PCF, comprising all stages of "
                                  "the product life cycle (including transportation), but excluding downstream "
                                  "emissions from product use and end-of-life” [1]")
    assert answer.citations[0].page == 13
    assert "“The boundary of the Pathfinder Framework, that is, the processes and their associated emissions that "\
           "should be accounted for and exchanged as part of the PCF by a company, is a cradle-to-gate PCF.”" in \
           answer.text
    assert "IPCC Assessment Report AR 5" in answer.text
    assert not [n for n in answer.notes if "do not state this part" in n]


def test_each_part_and_each_case_of_a_question_is_answered_nab_maslin(answerer, corpus_index, sources):
    """Nab & Maslin 2020, p. 7: the functional unit and "defined using PAS 2050:2011"; p. 12: 16.04 kg CO2e for
    conventional coffee from Vietnam and, in the sentence after it, 3.37 kg CO2e for sustainable coffee from Brazil."""
    scope = answerer.ask("What functional unit and which carbon footprint standard did the Nab and Maslin Arabica "
                         "coffee LCA use?")
    lines = scope.text.split("\n")
    assert "1 kg of green Arabica coffee beans" in lines[0]
    assert "The scope for this study was defined using PAS 2050:2011" in lines[1]
    totals = answerer.ask("In Nab and Maslin's coffee study, what is the total carbon footprint (including "
                          "processing) of conventional coffee from Vietnam and of sustainable coffee from Brazil?")
    first = totals.text.split("\n", 1)[0]
    assert "(16.04 kg CO2e kg–1 green coffee)" in first
    assert "sustainable coffee from Brazil (3.37 kg CO2e kg–1 green)" in first
    assert {(c.source, c.page) for c in totals.citations[:1]} == {(COFFEE, 12)}
    _assert_citations_verbatim(totals, corpus_index, sources)


def test_how_sequestration_changes_acidification_is_answered_with_both_values_burchart_p1(answerer):
    """Burchart et al. 2023, abstract (p. 1): acidification from 3.64·10−2 to 3.78·10−2 kg SO2-eq with
    sequestration; the conclusions (p. 14) state it again ("… the acidification potential index, AP, by approximately
    4% from 3.64·10−2 to 3.78·10−2 kg SO2-eq"): either answers."""
    answer = answerer.ask("How does CO2 sequestration change the acidification potential of hydrogen from Shell coal "
                          "gasification? Give both values.")
    first = answer.text.split("\n", 1)[0]
    assert re.search(r"acidification (?:rate|potential index, AP, by approximately 4%) from 3\.64·10−2 (?:kg SO2-eq )?"
                     r"to 3\.78·10−2 kg SO2-eq", first)
    assert (answer.citations[0].source, answer.citations[0].page) in {(BURCHART, 1), (BURCHART, 14)}
    assert not answer.notes


def test_a_part_the_first_passages_leave_unanswered_is_searched_for_on_its_own_burchart_pp4_5(answerer):
    """Burchart et al. 2023: the GHG results (abstract, p. 1) and, searched for on its own inside the paper, the
    functional unit (p. 4: "the FU is 1 kg of hydrogen at 88 MPa"); "for the assumed functional unit" is no answer
    to what the functional unit is."""
    answer = answerer.ask("In the Burchart et al. LCA of hydrogen from coal gasification, what are the GHG emissions "
                          "per functional unit with and without CO2 sequestration, and what is the functional unit?")
    lines = answer.text.split("\n")
    assert "from 34.8 kg CO2-eq to 19.5 kg CO2-eq" in lines[0]
    assert "the FU is 1 kg of hydrogen at 88 MPa" in lines[1]
    assert (answer.citations[1].source, answer.citations[1].page) == (BURCHART, 4)
    assert not [n for n in answer.notes if "do not state this part" in n]


def test_each_thing_asked_of_one_study_is_answered_in_the_order_asked_moretti_p2(answerer):
    """Moretti et al. 2020: the functional unit (2.1, p. 2: "1 kg of polypropylene"), the boundary (abstract, p. 1:
    "a cradle-to-factory gate Life-Cycle Assessment") and the geographic scope (p. 2: "the Netherlands")."""
    answer = answerer.ask("What functional unit, system boundary and geographic scope were used in the LCA of "
                          "polypropylene made from used cooking oil?")
    lines = answer.text.split("\n")
    assert "the functional unit (FU) is defined as 1 kg of polypropylene" in lines[0]
    assert "cradle-to-factory gate" in lines[1]
    assert "the geographic scope is defined as the Netherlands" in lines[2]
    assert not [n for n in answer.notes if "do not state this part" in n]


def test_four_things_asked_of_one_study_are_each_answered_from_its_page_2_moretti(answerer):
    """Moretti et al. 2020, 2.1 Goal and scope definition, p. 2: "1 kg of polypropylene", "A cradle-to-factory gate
    scope and an attributional approach are adopted", "the geographic scope is defined as the Netherlands"; the
    page's limit of three quotes does not drop the fourth part's."""
    answer = answerer.ask("What functional unit, system boundary, LCA approach and geographic scope does the Moretti "
                          "et al. (2020) UCO-based polypropylene study use?")
    lines = answer.text.split("\n")
    assert "the functional unit (FU) is defined as 1 kg of polypropylene" in lines[0]
    assert "A cradle-to-factory gate scope and an attributional approach are adopted in the LCA." in lines[1]
    assert "the geographic scope is defined as the Netherlands" in answer.text
    assert {(c.source, c.page) for c in answer.citations} == {("moretti-2020-uco-polypropylene-lca.pdf", 2)}
    assert not [n for n in answer.notes if "do not state this part" in n]


def test_each_case_and_each_elliptic_part_is_answered_groen_p1(answerer):
    """Groen et al. 2016, abstract (p. 1): "For large input uncertainties, Spearman correlation coefficients and the
    Sobol' indices performed best"; "Key issue analysis … was fastest, whereas the Sobol' method … was slowest"."""
    answer = answerer.ask("In Groen et al. (2016), which global sensitivity analysis methods performed best for small "
                          "and for large input uncertainties, and which method was fastest and which slowest?")
    lines = answer.text.split("\n")
    assert "especially for relatively small input uncertainties" in lines[0]
    assert "For large input uncertainties, Spearman correlation coefficients and the Sobol’ indices performed best" \
        in lines[1]
    assert "Key issue analysis does not make use of sampling and was fastest, whereas the Sobol’ method had to " \
           "generate two sampling matrices and, therefore, was slowest." in answer.text


def test_a_parameter_value_part_is_answered_with_that_parameter_pefcr_p114(answerer):
    """PEFCR guidance v6.3, p. 114: "0.2 ≤ A ≤ 0.8", A = 0.5 where Annex C has no value, and (7.18.4) "the B value
    shall be equal to 0 as default"."""
    answer = answerer.ask("In the PEFCR Guidance v6.3 Circular Footprint Formula, what range of values may the A "
                          "factor take in PEF studies, what value applies when no A value is available in Annex C, "
                          "and what is the default B value?")
    assert "This value applies to all materials for which no A value is available in Annex C." in answer.text
    assert "In PEF studies the A factor values shall be in the range 0.2 ≤ A ≤ 0.8" in answer.text
    assert "“In PEF studies and benchmark calculations the B value shall be equal to 0 as default.”" in answer.text
    assert not [n for n in answer.notes if "do not state this part" in n]


def test_a_ratio_answers_how_much_more_and_the_general_share_follows_the_specific_owid_p2(answerer):
    """Ritchie 2020 (Our World in Data), p. 2: air freight "emits 50 times more CO2eq than boat per tonne
    kilometer"; transport "For most food products, it accounts for less than 10%"."""
    answer = answerer.ask("According to Hannah Ritchie (Our World in Data, 2020), what share of food's GHG emissions "
                          "typically comes from transport, and how much more CO2eq per tonne-kilometre does air "
                          "freight emit than boat?")
    lines = answer.text.split("\n")
    assert "it emits 50 times more CO2eq than boat per tonne kilometer" in lines[1]
    assert "For most food products, it accounts for less than 10%" in answer.text
    assert not [n for n in answer.notes if "do not state this part" in n]


def test_the_source_a_question_is_asked_of_is_not_a_word_its_answer_must_say_owid_p2(answerer):
    """"According to Our World in Data, …": the article's text never names its publisher (only its byline does), so
    "Our", "World" and "Data" are whose answer is asked, not terms a quote must hold; p. 2 gives transport's share
    ("Transport typically accounts for less than 1% of beef’s GHG emissions")."""
    answer = answerer.ask("According to Our World in Data, what share of a food's footprint is transport?")
    assert not answer.abstained
    assert "Transport typically accounts for less than 1% of beef’s GHG emissions" in answer.text
    owid = "owid-ritchie-2020-food-choice-vs-eating-local.pdf"
    assert (answer.citations[0].source, answer.citations[0].page) == (owid, 2)


def test_a_value_under_its_sections_title_answers_its_part_and_a_footnote_mark_stays_raised_pefcr_p95(answerer):
    """PEFCR guidance 7.14.1.1 Truck transport, p. 95: "If the load is mass limited: a default utilisation ratio of
    64%⁵⁸ shall be used. This utilisation ratio includes empty return trips." The sentence never says "truck"; its
    section does. 58 is a footnote mark, not part of the number."""
    answer = answerer.ask("PEFCR guidance: what default truck utilisation ratio should I use for a mass-limited load, "
                          "and does it include empty returns?")
    lead = answer.text.split("\n", 1)[0]
    assert "a default utilisation ratio of 64%⁵⁸ shall be used. This utilisation ratio includes empty return trips." \
        in lead
    assert (answer.citations[0].section, answer.citations[0].page) == ("7.14.1.1 Truck transport", 95)
    assert not [n for n in answer.notes if "do not state this part" in n]


def test_another_documents_value_is_no_answer_for_what_the_question_names_rfnbo(answerer):
    """The EC's 2023 news item on the delegated acts says only that the second act "provides a methodology for
    calculating life-cycle greenhouse gas emissions for RFNBOs"; Burchart et al.'s "reduces GHG emissions by about
    44%" (p. 11) is about coal-gasification hydrogen, not RFNBOs."""
    answer = answerer.ask("What minimum GHG emission saving relative to the fossil fuel comparator must RFNBOs achieve "
                          "under the 2023 EU delegated act on life-cycle GHG emissions?")
    assert answer.abstained
    assert answer.text.startswith("I found no value in kg CO2e for this")


def test_a_recommendation_is_not_reported_as_not_stated_and_no_equation_is_quoted_heijungs(answerer):
    """Heijungs 2020, abstract (p. 394): "restrict the number of Monte Carlo runs to a number not greater than the
    sample sizes"; p. 401 prints an equation into "… incompatible with large-scale Monte Carlo simulations"."""
    answer = answerer.ask("What does Heijungs (2020) recommend regarding the number of Monte Carlo runs in LCA, and "
                          "what does he conclude for input distributions derived with the pedigree approach?")
    assert "we suggest to restrict the number of Monte Carlo runs to a number not greater than the sample sizes used " \
           "for the input parameters" in answer.text.split("\n")[0]
    assert "the Monte Carlo approach should not be used at all" in answer.text
    assert "þ" not in answer.text
    assert not answer.notes


def _not_stated_notes(answer) -> list[str]:
    return [n for n in answer.notes if "do not state this part" in n]


def test_vs_contractions_reasons_and_relative_amounts_answer_their_parts(answerer):
    """Review 18 (Q01, Q02, Q08): notes denied parts the quotes above them answer. Nab & Maslin 2020, p. 12: 16.04
    and 14.61 kg CO2e kg–1 with the transport distance as the difference ("vs" is no word a quote must hold); p. 7:
    "… at least 20 years, such that emissions from land use change … can be excluded" (what was left out, and why);
    Heijungs 2020, p. 394: "restrict the number of Monte Carlo runs to a number not greater than the sample sizes"."""
    vietnam = answerer.ask("For the Nab & Maslin coffee LCA: what's the total footprint of conventional Arabica from "
                           "Vietnam vs Brazil once processing is included, and what drives the difference?")
    assert "16.04 kg CO2e kg–1 green coffee" in vietnam.text and "14.61 kg CO2e kg–1 green coffee" in vietnam.text
    assert _not_stated_notes(vietnam) == []
    excluded = answerer.ask("In the Nab & Maslin coffee footprint, what functional unit did they use, and which "
                            "emissions did they leave out of scope and on what justification?")
    assert "1 kg of green Arabica coffee beans" in excluded.text.split("\n", 1)[0]
    assert "such that emissions from land use change and carbon storage by shade trees can be excluded" in excluded.text
    assert _not_stated_notes(excluded) == []
    runs = answerer.ask("How many Monte Carlo runs does Heijungs (2020) recommend for comparative LCA, and what about "
                        "pedigree-based uncertainty?")
    assert "restrict the number of Monte Carlo runs to a number not greater than the sample sizes" in runs.text
    assert "the Monte Carlo approach should not be used at all" in runs.text
    assert "If large-scale Monte Carlo simulations." not in runs.text  # a clause cut from its equation (p. 401)
    assert _not_stated_notes(runs) == []


def test_a_sensitivity_case_is_not_quoted_as_the_studys_method_moretti_4_2(answerer):
    """Review 18, Q06: Moretti et al. 2020, 4.2 Model uncertainty (pp. 8–9) tries a 50/50 allocation to UCO and
    substitution of all by-products; the study's own choices are on pp. 2 and 4–5. Neither case is quoted as the
    method. (4.2 opens by recalling the baseline, p. 8: that sentence is the method, and now leads.)"""
    answer = answerer.ask("How did Moretti et al. handle multifunctionality in the UCO-PP system — the UCO feedstock, "
                          "the hydrotreatment step and the steam cracker?")
    assert "we allocate 50% of the impact of the primary production of vegetable oil to UCO" not in answer.text
    baseline = "In the baseline calculations, energy allocation was used for hydrotreatment"
    assert baseline in answer.text.split("\n")[0]
    assert not [c for c in answer.citations if (c.section or "").startswith("4.2 Model uncertainty")
                and baseline not in c.quote]


def test_a_rebutted_claim_is_not_quoted_with_the_sentence_before_it_finnveden_p3(answerer):
    """Review 18, Q07: Finnveden et al. 2022, p. 3: "It is often claimed that system expansion in a broad sense should
    not be used for ALCA" is the claim the paper goes on to reject; it was quoted as the end of the answer's main
    quote, joined to the sentence before it as if "It" referred back."""
    answer = answerer.ask("Is it legit to use substitution / avoided burden in an attributional LCA? What do Finnveden "
                          "et al. (2022) argue?")
    assert not answer.abstained
    assert "It is often claimed that system expansion in a broad sense should not be used for ALCA" not in answer.text


def test_a_document_called_by_its_file_names_acronym_is_not_an_unknown_name_owid(answerer):
    """Review 18, Q16: "the OWID piece" names owid-ritchie-2020-food-choice-vs-eating-local.pdf by its file name; the
    article prints "Our World in Data", never "OWID", so the question was refused with "The library never mentions
    OWID". Ritchie 2020, p. 2: air freight "emits 50 times more CO2eq than boat per tonne kilometer"."""
    answer = answerer.ask("According to the OWID piece, how much does transport contribute to food emissions, and is "
                          "air freight an exception?")
    assert not answer.abstained
    assert "it emits 50 times more CO2eq than boat per tonne kilometer" in answer.text
    assert {c.source for c in answer.citations} == {"owid-ritchie-2020-food-choice-vs-eating-local.pdf"}


def test_which_values_to_use_is_answered_by_their_source_pathfinder_gwp(answerer):
    """Review 18, Q10: "which GWP values do you have to use" asks which set of values, not for a number: the
    Pathfinder Framework derives the 100-year GWPs from the IPCC Assessment Report AR 5 (p. 18; the questionnaire,
    p. 42, states the rule inside its brackets). The part was reported as not stated."""
    answer = answerer.ask("Under the WBCSD Pathfinder Framework v1, what's the system boundary for a PCF and which GWP "
                          "values do you have to use?")
    lines = answer.text.split("\n")
    assert "is a cradle-to-gate PCF" in lines[0]
    assert "IPCC Assessment Report AR 5" in answer.text
    assert _not_stated_notes(answer) == []


def test_a_duration_answers_how_long_ilcd_entry_level_p10(answerer):
    """Review 19, Q15: JRC ILCD compliance rules p. 10, the entry-level requirements "are defined to be in place for
    up to 3 years"; the answer quoted it and then said that part was not stated ("how long" is asked with, not
    said)."""
    answer = answerer.ask("ILCD Data Network: how long were the entry-level requirements supposed to apply, and can a "
                          "process dataset declare more than one quality level?")
    assert "These are defined to be in place for up to 3 years" in answer.text.split("\n", 1)[0]
    assert not [n for n in _not_stated_notes(answer) if "how long" in n]


def test_the_baseline_allocation_is_answered_from_the_sensitivity_section_moretti(answerer):
    """Review 19, Q05: every sentence of Moretti et al.'s "4.2 Model uncertainty: multifunctionality" failed the
    sensitivity gate, the one recalling the baseline too, and §2.2.2 (p. 4) was a sideways table's cells, so the
    question was refused. p. 8: "In the baseline calculations, energy allocation was used for hydrotreatment, while
    direct substitution for net steam and energy allocation is applied for the steam cracking process"; the cases
    set against the baseline ("Compared to the baseline, … exergy allocation") still fail."""
    answer = answerer.ask("How did Moretti et al. deal with multifunctionality — how was the used cooking oil itself "
                          "treated, and what allocation did they use for hydrotreatment and for steam cracking in the "
                          "baseline?")
    assert not answer.abstained
    assert ("In the baseline calculations, energy allocation was used for hydrotreatment, while direct substitution "
            "for net steam and energy allocation is applied for the steam cracking process") in answer.text
    assert "exergy allocation" not in answer.text
    single = answerer.ask("Which allocation method did Moretti et al. use for the hydrotreatment process?")
    assert "Energy allocation has been adopted for the hydrotreatment process." in single.text.split("\n")[0]


def test_a_functional_unit_and_what_the_boundary_leaves_out_burchart_p4_p5(answerer):
    """Review 19, Q03: Burchart et al. 2023 state "the FU is 1 kg of hydrogen at 88 MPa" (p. 4) and "The following
    were not considered in the analysis: construction of gasification plants, and construction and operation of
    hydrogen fueling stations and infrastructure" (p. 5). The answer gave neither: the section heading was run into
    its text, an abbreviation list ("FU Functional Unit") outranked p. 4, and a sentence on what the boundary covers
    was taken to say what it leaves out."""
    answer = answerer.ask("What functional unit did Burchart et al. use for the coal-to-hydrogen LCA, and what did "
                          "they leave out of the system boundary?")
    assert "the FU is 1 kg of hydrogen at 88 MPa" in answer.text.split("\n")[0]
    assert "The following were not considered in the analysis: construction of gasification plants" in answer.text
    assert "FU Functional Unit" not in answer.text
    assert _not_stated_notes(answer) == []


def test_what_a_paper_says_comes_from_its_conclusions_not_the_views_it_answers_finnveden(answerer):
    """Review 19, Q07: asked what Finnveden et al. 2022 say about the 100 % rule, the answer quoted only where the
    rule "could be valid", never the verdict of p. 5 ("this paper suggests that the 100 % rule … is not correct"),
    and quoted the views the paper argues against ("Others would suggest that … substitution should not be used",
    p. 3) as if they were its own."""
    answer = answerer.ask("Finnveden et al. 2022 — can you use system expansion or substitution in an attributional "
                          "LCA, and what do they say about the '100 % rule'?")
    assert "this paper suggests that system expansion and substitution can be used in both CLCA and ALCA studies" \
        in answer.text.split("\n")[0]
    assert "is not correct" in answer.text
    assert "Others would suggest" not in answer.text
    assert "It is often claimed" not in answer.text


def test_a_kicker_in_display_type_is_no_answer_hydrogen_bank(answerer):
    """Review 19, Q17: the answer about the first Hydrogen Bank auction's funding opened with the copy's kicker
    "European Commission news item (DG CLIMA, 7 October 2024)" (p. 1, 15 pt display type), and the only amount in it
    was one project's row (eNRG Lahti, EUR 45,228,375, p. 2): how much the winners got is the total of p. 1."""
    answer = answerer.ask("How much money did the winners of the first European Hydrogen Bank auction get, and for "
                          "how many projects?")
    assert "European Commission news item" not in answer.text
    assert "The total amount of support comes to EUR 694 521 237" in answer.text.split("\n")[0]


def test_a_part_named_by_its_section_title_is_not_reported_unstated_burchart_table_6(answerer):
    """Burchart et al. 2023, Table 6 (p. 10, under "2.2 Description of the System Examined: Life Cycle Inventory"):
    "Coal production: INPUT Amount 10.42 kg", "Oxygen: INPUT Amount 5.55 kg" per kg of H2. A note said the
    inventory's coal input was not stated: "life cycle inventory" is in the section's title, not the row, and "goes
    in" was counted as a word the answer had to hold."""
    answer = answerer.ask("Per kg of hydrogen in Burchart et al.'s life cycle inventory, how much hard coal goes in, "
                          "and how much oxygen?")
    assert "Coal production: INPUT Amount 10.42 kg" in answer.text.split("\n")[0]
    assert "Oxygen: INPUT Amount 5.55 kg" in answer.text
    assert _not_stated_notes(answer) == []


def test_a_cited_studys_value_does_not_lead_when_a_later_part_names_another_quantity_burchart(answerer):
    """Review 20, Q04: "GWP with vs without CO2 sequestration, and what happens to acidification …" named
    acidification first, so only acidification values counted as values and the cited SCG/UCG study's "416.362 and
    547.717 kg CO2-eq, respectively, without sequestration operations" (Burchart et al. 2023, p. 13, after "The
    authors of the study demonstrated …") led the answer. Its own results: 34.8 → 19.5 kg CO2-eq, AP 3.64·10−2 →
    3.78·10−2 kg SO2-eq."""
    answer = answerer.ask("Burchart coal-to-H2: GWP with vs without CO2 sequestration, and what happens to "
                          "acidification when you add sequestration?")
    assert "416.362" not in answer.text
    first = answer.text.split("\n")[0]
    assert "from 34.8 kg CO2-eq to 19.5 kg CO2-eq" in first and "3.64·10−2" in first


def test_a_conditional_second_part_is_its_own_part_ilcd_p10(answerer):
    """Review 20, Q14 (and review 19, Q15): "…, and if a dataset meets 'basic quality' can it also declare 'data
    estimate'?" was read as one part with the first, so only "up to 3 years" was answered. JRC ILCD compliance rules
    p. 10: "Regarding the quality level ONLY the highest attained level shall be given (…) but NOT also
    "ILCD-compliance - Situation A - Data estimate"."""
    answer = answerer.ask("ILCD Data Network: how long do the entry-level requirements apply, and if a dataset meets "
                          "'basic quality' can it also declare 'data estimate'?")
    assert "These are defined to be in place for up to 3 years." in answer.text.split("\n")[0]
    assert "ONLY the highest attained level shall be given" in answer.text
    assert _not_stated_notes(answer) == []


def test_the_statements_a_paper_rejects_are_listed_as_such_finnveden_p1(answerer, corpus_index, sources):
    """Review 20, Q08: asked which claims Finnveden et al. 2022 reject, the answer quoted the introduction and not one
    of the six statements (p. 1, items 1)–3) in one chunk, 4)–6) in the next), all gated out as refuted. Asked for
    what the paper rejects, the six are the answer, under their lead-in and with the sentence rejecting them."""
    answer = answerer.ask("Which claims about attributional LCA does the Finnveden paper reject?")
    lines = answer.text.split("\n")
    assert lines[0].startswith("Under “This article discusses six areas of debate and potential misunderstandings")
    for item in ("1) LCA results of all the products in the world should add up",
                 "4) Attributional LCA leads to more truncation errors than consequential LCA does.",
                 "6) There is a clear boundary between attributional and consequential LCA."):
        assert item in lines[0]
    assert "it is argued that they are either misunderstandings or sometimes incorrect" in lines[1]
    assert {(c.source, c.page) for c in answer.citations[:1]} == {("finnveden-2022-attributional-lca-debates.pdf", 1)}
    _assert_citations_verbatim(answer, corpus_index, sources)


def test_review_21_parts_counts_and_lists_are_answered(answerer):
    """Review 21: a later part's value, a count and a list were each missing although their passage was retrieved.
    Burchart et al. 2023: the FU sentence runs from p. 4 to p. 5 (its graph-fact copy was cited on p. 4 alone and
    dropped) and "what GHG result did they get" is a value in kg CO2-eq (p. 11), not "contribute approximately 30% to
    the GHG structure"; South Tyrolean apple, p. 2: "how many farms" is "8,000 family businesses" after ", how many"
    opens its own part; Groen et al. 2016, p. 1: the five methods compared."""
    burchart = answerer.ask("What functional unit did Burchart et al. (2023) use for hydrogen from coal gasification, "
                            "and what GHG result did they get with and without CO2 sequestration?")
    lines = burchart.text.split("\n")
    assert "the FU is 1 kg of hydrogen at 88 MPa" in lines[0]
    assert "from 34.8 kgCO2(eq)/FU to only 19.5 kgCO2(eq)/FU" in lines[1]
    assert burchart.citations[0].page_label == "4–5" and _not_stated_notes(burchart) == []
    apple = answerer.ask("How big is the South Tyrolean apple-growing area, how many farms are there and what is the "
                         "annual harvest?")
    assert [line.split("”")[0] for line in apple.text.split("\n")[:3]] == [
        "“With around 18,400 hectares, South Tyrol is the largest closed apple-growing area in the EU. With a valley "
        "length of around 100 kilometers, it extends from Salurn in the south through the Adige Valley up to Mals in "
        "Vinschgau.", "“With around 8,000 family businesses, apple cultivation in South Tyrol is very small.",
        "“The annual harvest is around 950,000 tonnes, around half of which is marketed in Italy."]
    assert _not_stated_notes(apple) == []
    groen = answerer.ask("Which global sensitivity analysis methods did Groen et al. compare, and which performed "
                         "best for large input uncertainties?")
    lines = groen.text.split("\n")
    assert lines[0].startswith("“Five methods that quantify the contribution to output variance were evaluated: "
                               "squared standardized regression coefficient, squared Spearman correlation coefficient")
    assert "For large input uncertainties, Spearman correlation coefficients and the Sobol’ indices performed best" \
        in lines[1]


def test_a_count_is_a_number_of_the_things_asked_for_hydrogen_bank_p1(answerer):
    """Review 20, Q17 / review 21, Q16: "how many projects" is "Six renewable hydrogen projects have signed their
    respective grant agreements" (Hydrogen Bank pilot, p. 1), not money because the question says "support"; in a
    three-part question the total, the count and the bid prices (Table, p. 2, EUR/kg) each answer their part."""
    count = answerer.ask("How many projects did the first European Hydrogen Bank auction support?")
    assert count.text.startswith("“Six renewable hydrogen projects have signed their respective grant agreements")
    three = answerer.ask("How much support did the winners of the first European Hydrogen Bank auction get, for how "
                         "many projects, and what bid prices?")
    assert "EUR 694 521 237" in three.text.split("\n")[0]
    assert "Six renewable hydrogen projects" in three.text
    assert re.search(r"Bid price \(EUR/kg\) 0\.[34]\d;", three.text)  # a winner's row (0.37–0.48 EUR/kg)
    assert _not_stated_notes(three) == []


def test_a_price_per_kg_is_not_answered_by_sums_of_money_second_auction(answerer):
    """Review 20, Q20: the second Hydrogen Bank auction's news item (2025) gives bids, budgets and the ETS revenue in
    EUR but no price per kg; "winning bid prices" asks for one, and the library does not state it. Review 21, O3:
    Annex C of the PEFCR guidance (p. 213) only points to an Excel file; no passage names aluminium cans."""
    for question in ("What were the winning bid prices in the second European Hydrogen Bank auction?",
                     "What A-factor value does Annex C of the PEFCR Guidance 6.3 assign to aluminium beverage cans?"):
        answer = answerer.ask(question)
        assert answer.abstained, question
    assert "EUR per kg" in answerer.ask("What was the winning bid price per kg of hydrogen in the second Hydrogen "
                                        "Bank auction?").text


def test_a_source_spelled_out_by_its_initials_is_that_document_owid(answerer):
    """Review 21, Q15: "the Our World in Data article" named the JRC's "ILCD Data Network" by its word "Data" and the
    answer was refused for ILCD passages never mentioning the US. OWID is owid-ritchie-2020-…pdf; p. 2: "they would
    save 0.3 tCO2eq" and "If they replaced it with plant-based alternatives they would save 0.46 tCO2eq"."""
    answer = answerer.ask("According to the Our World in Data article, how does eating entirely local compare with "
                          "going red-meat-and-dairy-free one day a week for an average US household (give the tCO2eq "
                          "figures)?")
    assert not answer.abstained
    assert {c.source for c in answer.citations} == {"owid-ritchie-2020-food-choice-vs-eating-local.pdf"}
    assert "they would save 0.3 tCO2eq" in answer.text and "they would save 0.46 tCO2eq" in answer.text


def test_a_recommendation_is_quoted_with_its_exception_moretti_p11(answerer):
    """Review 20, Q06: Moretti et al. 2020, 5 Conclusions, p. 11: "It is recommended to avoid the use of system
    expansion followed by substitution in attributional studies." is followed by "The only exceptional cases are the
    ones where direct substitution of by-products can represent physical causality …"; the two are one quote."""
    answer = answerer.ask("What do Moretti et al. recommend about using the substitution method in attributional "
                          "studies?")
    assert ("It is recommended to avoid the use of system expansion followed by substitution in attributional studies."
            " The only exceptional cases are the ones where direct substitution of by-products can represent physical "
            "causality") in answer.text.split("\n")[0]


def test_graph_facts_shown_are_stated_in_the_passages_the_answer_quotes(answerer):
    """Review 21: "PEFCR —covers→ representative product" was shown under every PEFCR question. A fact is shown only
    when one of its statements is in a passage a claim quotes; its citation is then one of the claims'."""
    for question in ("What cut-off rule does the PEFCR Guidance 6.3 allow for excluding processes?",
                     "Under the PEFCR Guidance, what default transport scenario should I use for a supplier located "
                     "outside Europe (supplier to factory)?"):
        answer = answerer.ask(question, mode="rag+graph")
        claimed = {int(n) for n in re.findall(r"\[(\d+)\]", answer.text)}
        assert all(set(f.citations) <= claimed for f in answer.facts), (question, answer.facts)
        assert not any((f.subject, f.object) == ("PEFCR", "representative product") for f in answer.facts)


def test_review_22_a_paper_s_position_source_and_technology(answerer):
    """Review 22. Finnveden et al. 2022, 3 Final reflections, p. 5: "Also, this paper suggests that system expansion and
    substitution can be used in both CLCA and ALCA studies" answers "According to …, can …?". Nab & Maslin 2020, 6.4,
    p. 12: where the processing phase comes from is the study it takes it from (PCF Pilotprojekt Deutschland 2008,
    3.05 kg CO2e kg–1); the sentence the Figure 5 caption cuts ("In an LCA of The contribution of each phase …") is no
    quote. Burchart et al. 2023 models Shell gasification of hard coal; lignite with Texaco technology is only their
    earlier work [44] (p. 4), so no value answers it."""
    finnveden = answerer.ask("According to Finnveden et al. (2022), can system expansion and substitution be used in "
                             "attributional LCA?")
    assert "this paper suggests that system expansion and substitution can be used in both CLCA and ALCA studies" \
        in finnveden.text.split("\n")[0]
    coffee = answerer.ask("Where does the processing-phase carbon footprint used in the Nab & Maslin coffee study come "
                          "from, what is its value, and which step dominates it?")
    assert coffee.text.startswith("“An LCA on coffee processing by PCF Pilotprojekt Deutschland (2008) calculated a "
                                  "carbon footprint of 3.05 kg CO2e kg–1 green coffee, with 70% of emissions "
                                  "associated with consumption")
    assert "In an LCA of The contribution" not in coffee.text and _not_stated_notes(coffee) == []
    texaco = answerer.ask("What GWP per kg H2 do Burchart et al. (2023) report for hydrogen from lignite gasification "
                          "with Texaco technology?")
    assert texaco.abstained and "Texaco" in texaco.text
    shell = answerer.ask("In Burchart et al. (2023), what is the functional unit, and what GWP per functional unit do "
                         "they report for hydrogen from Shell coal gasification with and without CO2 sequestration?")
    assert "34.8" in shell.text and "19.5" in shell.text and _not_stated_notes(shell) == []


def test_review_23_definitions_counts_causes_and_conditions_are_not_reported_missing(answerer):
    """Review 23. PEFCR guidance 7.4.1, p. 50: "The most relevant impact categories shall be identified as all impact
    categories that cumulatively contribute to at least 80% …" defines the term (it was never quoted) and "At last
    three relevant impact categories shall be considered" states the minimum (a note said it did not). Nab & Maslin
    2020, p. 1: the 77% reduction "was due to" the two factors; Heijungs 2020, p. 394: Monte Carlo "should not be used
    at all" "when the input parameters are not estimated using samples"; PEFCR guidance 7.6, p. 61: "a 1% cut-off"
    is the threshold. Each was quoted and then said not to be stated."""
    relevant = answerer.ask("How does the PEFCR Guidance v6.3 define the most relevant impact categories, and what is "
                            "the minimum number to be considered?")
    assert relevant.text.startswith("“The most relevant impact categories shall be identified as all impact categories "
                                    "that cumulatively contribute to at least 80% of the total environmental impact")
    assert "At last three relevant impact categories shall be considered." in relevant.text
    assert _not_stated_notes(relevant) == []
    for question in ("What average carbon footprint did Nab & Maslin calculate for sustainable Arabica coffee "
                     "production, what percentage reduction is that versus conventional production, and what two "
                     "factors caused the reduction?",
                     "What does Heijungs (2020) recommend regarding the number of Monte Carlo runs in comparative LCA, "
                     "and in what situation should Monte Carlo not be used at all?",
                     "If we want to leave a few minor processes out of a PEF model, what cut-off threshold is allowed, "
                     "and are any impact categories ignored when applying it?"):
        answer = answerer.ask(question)
        assert not answer.abstained and _not_stated_notes(answer) == [], (question, answer.notes)


def test_review_23_a_total_a_list_of_five_and_each_of_two_acts(answerer):
    """Review 23. Hydrogen Bank pilot, p. 1: "The total amount of support comes to EUR 694 521 237" answers "what
    total support" (not the next auction's EUR 1.2 billion budget, p. 2), and the bid table is read whole (0.37 to
    0.48 EUR/kg). Groen et al. 2016, p. 1 or p. 12: "Five methods … were evaluated: …" answers "Which five …
    methods" (the abstract's chunk is BM25's best inside the paper, not among kNN's). The June 2023 news item on the
    delegated acts (not the 2025 auction item) says what each act covers: "The first act defines …", "The second act
    provides a methodology …"."""
    pilot = answerer.ask("In the first (pilot) European Hydrogen Bank auction, what total support did the six projects "
                         "that signed grant agreements receive, and what was the range of their bid prices in EUR per "
                         "kg?")
    assert "The total amount of support comes to EUR 694 521 237" in pilot.text.split("\n")[0]
    assert "Bid price (EUR/kg) 0.37" in pilot.text and "Bid price (EUR/kg) 0.39" in pilot.text
    assert _not_stated_notes(pilot) == []
    groen = answerer.ask("Which five global sensitivity analysis methods did Groen et al. (2016) compare, and which "
                         "ones performed better when input uncertainties were large?")
    # (the abstract, p. 1, or the conclusions, p. 12, which name the same five with their acronyms)
    first = groen.text.split("\n")[0]
    assert first.startswith("“Five methods that quantify the contribution to output variance were evaluated: squared "
                            "standardized regression coefficient")
    assert "key issue analysis" in first and "random balance design" in first
    assert "Sobol’ indices" in groen.text.split("\n", 1)[1] and _not_stated_notes(groen) == []
    acts = answerer.ask("According to the Commission's June 2023 news item on the renewable hydrogen delegated acts, "
                        "what does each of the two delegated acts cover, and how much renewable electricity does the "
                        "Commission estimate is needed for the REPowerEU ambition of 10 million tonnes of RFNBOs?")
    lines = acts.text.split("\n")
    assert lines[0].startswith("“The first act defines under which conditions hydrogen")
    assert lines[1].startswith("“The second act provides a methodology for calculating life-cycle greenhouse gas")
    assert "around 500 TWh of renewable electricity" in acts.text and _not_stated_notes(acts) == []
    assert {c.source for c in acts.citations} == {"ec-2023-renewable-hydrogen-delegated-acts.pdf"}


def test_review_23_the_allocation_of_each_multifunctional_step_moretti(answerer):
    """Review 23, Q06: Moretti et al. 2020 solve the hydrotreatment by energy allocation (p. 4), the steam cracker by
    direct substitution of the net steam plus energy allocation (p. 8 recalls both), which puts "20% of the remaining
    impacts" on propylene (p. 5, the end of a sentence begun on p. 4 before Tables 2–3: its chunk opened with
    "guidance). Energy allocation …" and failed the fragment gate). "…, and which for the steam cracking step" asks
    the first part's question of the steam cracker; "what share … is allocated" is no ellipsis of it."""
    answer = answerer.ask("In Moretti et al. (2020) on polypropylene from used cooking oil, which allocation approach "
                          "was used for the hydrotreatment step and which for the steam cracking step, and what share "
                          "of the remaining impacts is allocated to propylene?")
    lines = answer.text.split("\n")
    assert "multiple products of hydrotreatment has been solved through energy allocation" in lines[0]
    assert ("direct substitution for net steam and energy allocation is applied for the steam cracking process"
            in lines[1])
    assert ("“Energy allocation has been applied to all the other co-(by-) products resulting in 20% of the remaining "
            "impacts allocated to propylene.”") in answer.text
    assert _not_stated_notes(answer) == []


def test_review_23_both_sides_of_a_comparison_and_both_reductions(answerer):
    """Review 23. Q16: JRC ILCD compliance rules, Tab. 1's Review row (p. 6) sets the entry-level ("Use of reviewers
    from registry not required") against full ILCD-compliance ("ILCD-registered, qualified "Independent external
    reviewer"", "Separate review report always required"); only the entry-level side (Tab. 7, p. 17) was quoted.
    Q07: Moretti et al. 2020, p. 10: "62% lower impact on climate change and 86% for resource use (fossil fuels)" and
    "1 kg of petrochemical PP causes 1.65–1.78 kg CO2eq" answer "what climate change and fossil resource use
    reductions …"; the green-hydrogen case of p. 7 ("In such a case, the climate change impact of UCO-PP could
    potentially be reduced by a third") led, its case cut off."""
    ilcd = answerer.ask("How do the review requirements for process data sets differ between the ILCD Data Network "
                        "entry-level and full ILCD-compliance?")
    lead = ilcd.text.split("\n", 1)[0]
    assert lead.startswith("Compliance area: Review | ILCD Data Network - Entry-level: ▪ Use of reviewers from "
                           "registry not required")
    assert "ILCD-registered, qualified \"Independent external reviewer\"" in lead
    assert "Separate review report always required" in lead
    assert ilcd.citations[0].page == 6
    pp = answerer.ask("What climate change and fossil resource use reductions does UCO-based polypropylene achieve "
                      "relative to petrochemical PP in Moretti et al. (2020), and what GHG emissions per kg does the "
                      "paper give for petrochemical PP at the factory gate?")
    lead = pp.text.split("\n", 1)[0]
    assert "1 kg of petrochemical PP causes 1.65–1.78 kg CO2eq GHGs" in lead
    assert "has a 62% lower impact on climate change and 86% for resource use (fossil fuels)" in lead
    assert "In such a case" not in pp.text and _not_stated_notes(pp) == []


def test_review_24_how_much_support_the_functional_unit_and_both_named_documents(answerer):
    """Review 24. Hydrogen Bank pilot, p. 1: "how much support did the … projects receive" is "The total amount of
    support comes to EUR 694 521 237", and "how much hydrogen and CO2 avoidance" the 1.52 million tonnes avoiding
    more than 10 million tonnes of "CO 2" (the scrape's spacing). Nab & Maslin 2020, p. 7: "what functional unit is
    used" is "The functional unit defined for this study was 1 kg of green Arabica coffee beans", not "… for one
    functional unit" (p. 8). A comparison of the Our World in Data article with Nab & Maslin reads both documents
    and was refused because the coffee passages never print "Our World in Data"."""
    pilot = answerer.ask("How much support did the first EU Hydrogen Bank (Innovation Fund pilot) auction projects "
                         "receive when signing grant agreements, and how much hydrogen and CO2 avoidance is "
                         "expected?")
    assert "The total amount of support comes to EUR 694 521 237" in pilot.text.split("\n")[0]
    assert "up to 1.52 million tonnes of renewable hydrogen" in pilot.text and _not_stated_notes(pilot) == []
    coffee = answerer.ask("In Nab & Maslin (2020), what functional unit is used and what are the average carbon "
                          "footprints of conventional and sustainable Arabica coffee?")
    assert coffee.text.startswith("“The functional unit defined for this study was 1 kg of green Arabica coffee "
                                  "beans")
    assert "15.33 (±0.72)" in coffee.text and _not_stated_notes(coffee) == []
    both = answerer.ask("Compare: what share of food emissions does the Our World in Data article attribute to "
                        "transport, and how does that compare with the exportation share Nab & Maslin found for "
                        "conventional coffee?")
    assert not both.abstained
    assert {"owid-ritchie-2020-food-choice-vs-eating-local.pdf", "nab-maslin-2020-coffee-carbon-footprint.pdf"} <= {
        c.source for c in both.citations}


def test_review_24_how_a_share_is_calculated_and_parts_quoted_then_denied(answerer):
    """Review 24. Pathfinder Framework 7.2.3, p. 34: "This can be done by calculating the proportion (percentage) of
    the total GHG emissions (CO₂e) that is derived using primary data" is how the PDS is calculated; "This" refers
    back, it is read with the sentence before it. JRC ILCD compliance rules: the three data quality levels (p. 8) and
    "up to 3 years" (p. 10) were quoted, then said not to be stated."""
    pds = answerer.ask("How does the Pathfinder Framework define and calculate the primary data share (PDS) of a "
                       "product carbon footprint?")
    assert ("This can be done by calculating the proportion (percentage) of the total GHG emissions (CO₂e) that is "
            "derived using primary data") in pds.text
    ilcd = answerer.ask("Which three data-quality levels does ILCD compliance distinguish for process data sets, and "
                        "for how long were the \"entry-level\" requirements intended to apply?")
    assert "High quality data" in ilcd.text and "up to 3 years" in ilcd.text
    assert _not_stated_notes(ilcd) == []


def test_review_25_how_much_support_an_auction_granted_is_its_total(answerer):
    """Review 25, Q17 (misleading): "How much support did the first European Hydrogen Bank (Innovation Fund pilot)
    auction grant" led with the second auction's "increased budget of EUR 1.2 billion" (p. 2); the pilot's support is
    "The total amount of support comes to EUR 694 521 237" (p. 1)."""
    answer = answerer.ask("How much support did the first European Hydrogen Bank (Innovation Fund pilot) auction "
                          "grant, to how many projects, and with what expected output?")
    assert answer.text.startswith("“The total amount of support comes to EUR 694 521 237")


def test_review_25_parts_the_quotes_state_are_not_denied(answerer):
    """Review 25, Q02 and Q11: notes denied parts the quotes above them state. Nab & Maslin 2020, p. 7: "PAS 2050:2011,
    a carbon standard …" is the carbon-footprint standard of a carbon footprint study, and "at least 95% of the total
    emissions must be assessed" is how much of the emissions it requires (a share). PEFCR guidance p. 114: A = 0.5
    "applies to all materials for which no A value is available in Annex C" is the default."""
    coffee = answerer.ask("What functional unit and carbon-footprint standard did the coffee study (Nab & Maslin) use, "
                          "and how much of total emissions does that standard require to be assessed?")
    assert "1 kg of green Arabica coffee beans" in coffee.text and "PAS 2050:2011" in coffee.text
    assert "at least 95% of the total emissions" in coffee.text and _not_stated_notes(coffee) == []
    a_factor = answerer.ask("In the Circular Footprint Formula, what values may the A factor take and what default "
                            "applies when none is listed?")
    assert "0.2 ≤ A ≤ 0.8" in a_factor.text and "A=0.5" in a_factor.text and _not_stated_notes(a_factor) == []


def test_review_25_a_value_per_the_unit_asked_and_the_reason_beside_it(answerer):
    """Review 25, Q01 and Q07. Nab & Maslin 2020, p. 1: "(per kg green coffee)" is answered by 15.33 and 3.51 kg CO2e
    per 1 kg of green coffee, not by the per-espresso figures of p. 12, and the sentence after them gives the reason
    (cargo ship rather than freight flight, fewer agrochemicals). Moretti et al. 2020, p. 4: why energy allocation —
    "energy has been chosen according to RED recommendations …", which cites the RED at its end and is the study's
    own choice, not another work's result."""
    coffee = answerer.ask("In Nab & Maslin's coffee LCA, what is the average carbon footprint of conventional vs "
                          "sustainable Arabica coffee (per kg green coffee), and what explains the difference?")
    assert "15.33 (±0.72) kg of carbon dioxide equivalent per 1 kg of green coffee" in coffee.text.split("\n")[0]
    assert "via cargo ship rather than freight flight and the reduction of agrochemical inputs" in coffee.text
    moretti = answerer.ask("Which allocation method did Moretti et al. use for the hydrotreatment (NEXBTL) process, "
                           "and why?")
    assert "solved through energy allocation" in moretti.text.split("\n")[0]
    assert "energy has been chosen according to RED recommendations" in moretti.text


def test_review_25_the_dqr_formula_and_the_level_company_specific_data_must_reach(answerer):
    """Review 25, Q10: the PEFCR guidance's Equation 20 (p. 130), printed in mathematical italic as a fraction, is
    quoted as "DQR = (TeR+GR+TiR+P)/4"; "what DQR must … reach" is a limit, "(the DQR score shall be ≤1.6)"."""
    answer = answerer.ask("How is the Data Quality Rating (DQR) calculated in the PEFCR Guidance, and what DQR must "
                          "company-specific data for the mandatory processes reach?")
    assert "DQR = (TeR+GR+TiR+P)/4 [Equation 20]" in answer.text.split("\n")[0]
    assert "DQR score shall be ≤1.6" in answer.text and _not_stated_notes(answer) == []
    assert any(c.page == 130 and c.section == "7.19.2 DQR formula" for c in answer.citations)


def test_review_26_a_demonym_the_ghg_result_of_the_first_part_and_its_page(answerer):
    """Review 26, Q01 and Q03. "conventional Vietnamese coffee" is Vietnam's (Nab & Maslin 2020, p. 12: 16.04 kg CO2e
    kg–1 green coffee; exportation over 70%), not a place the library never names. Burchart et al. 2023: the first
    part's GWP is among its own best spans (p. 11: "from 34.8 kgCO2(eq)/FU to only 19.5 kgCO2(eq)/FU"); the
    functional unit sentence, under 2.1 and running from p. 4 to p. 5, is cited so, not as the introduction's p. 4."""
    coffee = answerer.ask("In Nab & Maslin's coffee study, what total carbon footprint did they get for conventional "
                          "Vietnamese coffee once processing is included, and what share of the conventional "
                          "footprint comes from exportation?")
    assert not coffee.abstained
    assert "16.04 kg CO2e kg–1 green coffee" in coffee.text.split("\n")[0] and "over 70%" in coffee.text
    hydrogen = answerer.ask("What's the GWP of hydrogen from Shell coal gasification per functional unit, with and "
                            "without CO2 sequestration, and what is the functional unit?")
    assert "34.8 kgCO2(eq)/FU to only 19.5 kgCO2(eq)/FU" in hydrogen.text.split("\n")[0]
    assert "the FU is 1 kg of hydrogen at 88 MPa" in hydrogen.text and _not_stated_notes(hydrogen) == []
    fu = next(c for c in hydrogen.citations if "FU is 1 kg of hydrogen" in c.quote)
    assert fu.section.startswith("2.1 Goal and Scope") and fu.page_label == "4–5"


def test_review_26_how_categories_are_picked_the_100_rule_and_the_second_act(answerer):
    """Review 26, Q07, Q13, Q17. PEFCR guidance p. 50: "The most relevant impact categories shall be identified as
    all impact categories that cumulatively contribute to at least 80% …" says how they are picked. Finnveden et al.
    2022: the 100 % rule "does not seem to be correct" (p. 2: their own judgement after the sentence citing [9]),
    and "it also seems reasonable to also accept substitution in ALCA" (p. 3), not only system expansion in the
    narrow sense. The delegated acts news (p. 1): what "the second act" takes into consideration, not the
    Commissioner's words ("This means legal certainty …" is no definition)."""
    pefcr = answerer.ask("How does the PEFCR guidance say the most relevant impact categories should be picked?")
    assert pefcr.text.startswith("“The most relevant impact categories shall be identified as all impact categories "
                                 "that cumulatively contribute to at least 80%")
    finnveden = answerer.ask("Do Finnveden and co-authors accept the \"100 % rule\" for attributional LCA, and can "
                             "substitution be used in an ALCA according to them?")
    assert "The 100 % rule interpreted in this way, however, does not seem to be correct" in finnveden.text
    # (p. 4, the authors' conclusion on both, quoted on its own since "It has also been suggested …" after it is no
    # longer read as referring back to it; before, p. 3's "it also seems reasonable to also accept substitution in
    # ALCA")
    assert "“As discussed above, it seems reasonable that system expansion and substitution can be compatible with " \
           "ALCA.”" in finnveden.text.split("\n")[1]
    acts = answerer.ask("What does the second renewable hydrogen delegated act of 2023 cover in the GHG calculation, "
                        "and how much renewable electricity does the Commission think the 10 Mt target needs?")
    assert "the second act takes into consideration, emissions associated with taking electricity from the grid" in \
        acts.text.split("\n")[0]
    assert "around 500 TWh of renewable electricity" in acts.text and _not_stated_notes(acts) == []


def test_review_26_a_boundary_the_study_never_assesses_is_not_answered(answerer):
    """Review 26, Q20 (out of scope, answered): Moretti et al. 2020 assess cradle to factory gate (p. 2) and leave a
    cradle-to-grave LCA for the future (p. 11); a question on the cradle-to-grave footprint with incineration is
    refused, naming the boundary, while the cradle-to-gate result is still answered (Table 4, p. 6)."""
    grave = answerer.ask("What is the cradle-to-grave carbon footprint of UCO-based polypropylene including "
                         "incineration at end of life?")
    assert grave.abstained and "cradle-to-grave" in grave.text
    gate = answerer.ask("What is the cradle-to-gate climate change result for 1 kg of polypropylene from used cooking "
                        "oil, with and without biogenic carbon removal?")
    assert not gate.abstained and "0.63 kg CO2eq" in gate.text and "−2.51 kg CO2eq" in gate.text


def test_review_26_why_many_monte_carlo_runs_are_a_problem(answerer):
    """Review 26, Q12: Heijungs 2020, p. 394: the reason is the flaw the cases point out (hypotheses that should not
    be rejected are rejected "in a highly convincing way, thus pointing out a fundamental flaw"), then the advice."""
    answer = answerer.ask("Why does Heijungs think running many thousands of Monte Carlo iterations in comparative "
                          "LCA is a problem, and what does he recommend?")
    assert "thus pointing out a fundamental flaw" in answer.text.split("\n")[0]
    assert "restrict the number of Monte Carlo runs to a number not greater than the sample sizes" in answer.text
    assert _not_stated_notes(answer) == []


def test_review_27_a_default_factor_output_and_savings_are_not_denied(answerer):
    """Review 27, Q08 and Q16: notes denied what the quotes state. PEFCR guidance p. 114: "the default B factor" is a
    value ("the B value shall be equal to 0 as default"), not a term to define. Hydrogen Bank pilot news, p. 1: the
    hydrogen output and the CO2 savings are what "the projects have the potential to produce" and "avoiding"."""
    cff = answerer.ask("In the Circular Footprint Formula, what values may the A factor take, what do they mean, what "
                       "is used when Annex C has no value, and what is the default B factor?")
    assert "0.2 ≤ A ≤ 0.8" in cff.text and "B value shall be equal to 0 as default" in cff.text
    assert _not_stated_notes(cff) == []
    pilot = answerer.ask("How much Innovation Fund support did the winners of the first European Hydrogen Bank auction "
                         "sign for, how many projects, and what hydrogen output and CO2 savings are expected?")
    assert "EUR 694 521 237" in pilot.text and "up to 1.52 million tonnes of renewable hydrogen" in pilot.text
    assert _not_stated_notes(pilot) == []


def test_review_27_goal_situations_c1_c2_the_levels_a_verdict_and_a_reason_kept_whole(answerer):
    """Review 27, Q10, Q12, Q17. JRC ILCD compliance rules: "what distinguishes goal situations C1 and C2" is answered
    where p. 7 sets them out, and the "Data quality" row of Tab. 1 (p. 6) gives the three levels with it. Finnveden et
    al. 2022: whether the 100 % rule holds is its verdict (p. 2), not "if the 100 % rule is not valid, …". Hydrogen
    vehicle extracts, p. 4: "In this way, the combustion process is much like …" is quoted with the NOx sentence it
    refers back to."""
    ilcd = answerer.ask("In the ILCD Data Network compliance rules, what distinguishes goal situations C1 and C2, and "
                        "which three data-quality levels are defined for process data sets?")
    assert "Situation C1 \"Accounting including external benefits\"" in ilcd.text.split("\n")[0]
    assert "\"high quality\", \"basic quality\", \"data estimate\"" in ilcd.text and _not_stated_notes(ilcd) == []
    rule = answerer.ask("Does the \"100% rule\" hold for attributional LCA according to Finnveden et al., and can "
                        "substitution be used in an attributional LCA?")
    assert rule.text.startswith("“The 100 % rule interpreted in this way, however, does not seem to be correct")
    engines = answerer.ask("Are hydrogen internal-combustion-engine vehicles zero-emission according to the Wikipedia "
                           "extract, and why?")
    assert ("it can produce oxides of nitrogen known as NOx. In this way, the combustion process is much like other "
            "high temperature combustion fuels") in engines.text
    assert "hydrogen combustion engines are not considered zero emission" in engines.text


def test_review_28_pedigree_and_the_baseline_treatment_are_not_denied(answerer):
    """Review 28, Q14 and Q06: notes denied what the documents state. Heijungs 2020, p. 394: the Monte Carlo approach
    "should not be used at all" with pedigree inputs (the sentence after the runs recommendation). Moretti et al. 2020,
    p. 7: "UCO has been treated with a cut-off approach in the baseline calculations" leads, then Table 6."""
    runs = answerer.ask("How many Monte Carlo runs does Heijungs recommend in comparative LCA, and what does he say "
                        "about pedigree-based uncertainty distributions?")
    lines = runs.text.split("\n")
    assert "restrict the number of Monte Carlo runs to a number not greater than the sample sizes" in lines[0]
    assert "such as the popular pedigree approach, the Monte Carlo approach should not be used at all" in lines[1]
    assert _not_stated_notes(runs) == []
    uco = answerer.ask("How was used cooking oil treated in the baseline of the Moretti UCO-PP study, and how much do "
                       "results change if the 50/50 method is used instead?")
    assert uco.text.startswith("“Accordingly, UCO has been treated with a cut-off approach in the baseline "
                               "calculations.”")
    assert "Climate change: Increase (%)" in uco.text and "soybean oil 58%" in uco.text
    assert _not_stated_notes(uco) == []


def test_review_28_the_reason_and_the_other_side_are_quoted(answerer):
    """Review 28, Q02, Q04, Q05, Q12, Q13: the quote stopped a sentence before what was asked. Nab & Maslin 2020,
    p. 14: the "two sustainability measures" with the first of them; Burchart et al. 2023, p. 14: the AP and EP
    increases "related to the increased consumption of electricity"; Moretti et al. 2020, p. 10: fossil PP's 1.65–1.78
    kg CO2eq and the baseline's 62% reduction (a question asking with and without BCR asks the baseline too); JRC
    ILCD compliance rules Tab. 1 (p. 6): the review row with both columns; Finnveden et al. 2022, p. 2: the verdict
    rejecting the 100 % rule."""
    coffee = answerer.ask("Why is the sustainable coffee footprint so much lower than the conventional one in the "
                          "Brazil/Vietnam coffee study, and how much of the conventional exportation phase is due to "
                          "the freight flight?")
    assert "mainly as a result of two sustainability measures. First, the use of cargo ships" in coffee.text
    assert "98–100% of emissions produced in the exportation phase" in coffee.text
    shell = answerer.ask("For Shell coal-gasification hydrogen, what are the GWP results with and without CO2 "
                         "sequestration, what happens to acidification and eutrophication when sequestration is "
                         "added, and why?")
    assert "Total (H2 Non-Seq.) 34.8 kg CO2 eq; Total (H2 Seq.) 19.5 kg CO2 eq" in shell.text.split("\n")[0]
    assert "is related to the increased consumption of electricity for the compression and injection of carbon " \
           "dioxide, which in Poland is produced mainly based on fossil fuels" in shell.text.split("\n")[1]
    pp = answerer.ask("What is the cradle-to-gate climate change result for 1 kg of polypropylene made from used "
                      "cooking oil, with and without biogenic carbon removal, and how does it compare with fossil PP?")
    assert "Value 0.63 kg CO2eq" in pp.text and "Value −2.51 kg CO2eq" in pp.text
    assert "1 kg of petrochemical PP causes 1.65–1.78 kg CO2eq" in pp.text \
        and "UCO-based PP (baseline) has a 62% lower impact on climate change" in pp.text
    ilcd = answerer.ask("How do the review requirements for ILCD Data Network entry-level data sets compare with those "
                        "for full ILCD compliance?")
    assert ilcd.text.startswith("Compliance area: Review | ILCD Data Network - Entry-level:")
    assert "Separate review report always required" in ilcd.text.split("\n")[0]
    rule = answerer.ask("Do Finnveden et al. consider system expansion or substitution acceptable in attributional "
                        "LCA, and why do they reject the \"100 % rule\"?")
    lines = rule.text.split("\n")  # (the six statements the paper rejects lead no part: none asks what it rejects)
    assert "system expansion in the narrow sense should be compatible with ALCA" in lines[0]
    assert lines[1].startswith("“The 100 % rule is thus not correct if defined as above.")
    assert _not_stated_notes(rule) == []


def test_review_29_winners_never_named_are_refused(answerer):
    """Review 29, Q20. The second European Hydrogen Bank auction's news item (2025, pp. 1–2) reports the bids received
    and when "successful applicants will be invited", not who won; the pilot auction's item is the winners'."""
    winners = answerer.ask("Which projects won the second European Hydrogen Bank auction in 2025 and how much funding "
                           "did they get in total?")
    assert winners.abstained and not winners.citations
    assert winners.text.startswith("The library does not state this: its closest passages never mention the winners")
    first = answerer.ask("Which projects won the first European Hydrogen Bank auction and how much funding did they "
                         "get in total?")
    assert not first.abstained and "Bid price (EUR/kg) 0.37" in first.text


def test_review_29_per_what_unit_each_ones_meaning_and_the_benchmark_numbers_are_answered(answerer):
    """Review 29, Q03, Q08, Q06. Burchart et al. 2023: "…, and per what functional unit?" is its own part, answered by
    "the FU is 1 kg of hydrogen at 88 MPa" (pp. 4–5). PEFCR guidance p. 114: "what does each one mean" asks no term
    ("each one" refers back to the A values, whose meanings the list gives). Moretti et al. 2020, p. 10: the fossil-PP
    numbers benchmarked against are the quoted 1.65–1.78 kg CO2eq and 67–74 MJ."""
    fu = answerer.ask("What GHG emissions did Burchart et al. get for hydrogen from Shell coal gasification with and "
                      "without CO2 sequestration, and per what functional unit?")
    assert "34.8 kgCO2(eq)/FU to only 19.5 kgCO2(eq)/FU" in fu.text.split("\n")[0]
    assert "the FU is 1 kg of hydrogen at 88 MPa" in fu.text and _not_stated_notes(fu) == []
    a = answerer.ask("In the Circular Footprint Formula, what values can the A factor take and what does each one "
                     "mean?")
    assert "A=0.2. Low offer of recyclable materials and high demand" in a.text.split("\n")[0]
    assert _not_stated_notes(a) == []
    pp = answerer.ask("How much better is UCO-based PP than fossil PP on climate change and fossil resource use, and "
                      "what fossil-PP numbers did Moretti et al. benchmark against?")
    assert "1 kg of petrochemical PP causes 1.65–1.78 kg CO2eq GHGs" in pp.text.split("\n")[0]
    assert _not_stated_notes(pp) == []


def test_review_30_a_percentage_of_something_else_is_no_answer(answerer):
    """Review 30, Q20: no document states the GHG saving RFNBOs must achieve; "7% of the EU's REPowerEU ambition"
    (Hydrogen Bank second auction news, 2025, p. 1) is a share of something else. A share the library states is
    still answered: 0.16% of food miles are air-freighted (Ritchie 2020, p. 3)."""
    rfnbo = answerer.ask("What minimum percentage GHG saving must renewable hydrogen (RFNBO) achieve under the 2023 EU "
                         "delegated act on life-cycle emissions?")
    assert rfnbo.abstained and rfnbo.text.startswith("I found no value in % for this")
    air = answerer.ask("What share of food miles does air freight account for according to Our World in Data?")
    assert not air.abstained and "it accounts for only 0.16% of food miles" in air.text.split("\n")[0]


def test_review_31_a_rule_set_out_a_bounded_number_of_runs_and_the_reason_for_a_choice(answerer):
    """Review 31, Q12, Q09, Q06. PEFCR guidance p. 61: "what is the cut-off rule" is answered by the rule with its 1 %
    threshold, not by a sentence naming the rule, and no note denies it. Heijungs 2020, p. 394: "restrict the number
    of Monte Carlo runs to a number not greater than the sample sizes" bounds the number asked for; "more than 100
    Monte Carlo iterations/second" (p. 395) is a number of something else. Moretti et al. 2020: "The reaction is
    highly endothermic; therefore …" (p. 3) gives no reason for the steam cracker's allocation approach."""
    cutoff = answerer.ask("What is the cut-off rule in the PEFCR Guidance v6.3, and which impact categories are "
                          "excluded when applying it?")
    first = cutoff.text.split("\n")[0]
    assert "this shall be done based on a 1% cut-off for all impact categories" in first
    assert "Human toxicity-Cancer effect, Human toxicity-non Cancer effect and Freshwater Ecotoxicity" in first
    assert _not_stated_notes(cutoff) == []
    runs = answerer.ask("How many Monte Carlo runs does Heijungs (2020) recommend in comparative LCA, and what does "
                        "he say about pedigree-based uncertainty?")
    lines = runs.text.split("\n")
    assert "restrict the number of Monte Carlo runs to a number not greater than the sample sizes" in lines[0]
    assert "the Monte Carlo approach should not be used at all" in lines[1]
    steam = answerer.ask("What allocation approach did Moretti et al. use for the steam cracking unit, and why?")
    assert "direct substitution for net steam and energy allocation is applied for the steam cracking process" \
        in steam.text.split("\n")[0]
    assert "The reaction is highly endothermic" not in steam.text
    assert "direct substitution" in steam.text.split("\n")[1] and "physical causality" in steam.text.split("\n")[1]


def test_review_32_no_refusal_or_note_denies_what_the_library_states(answerer):
    """Review 32, Q05, Q06, Q09, Q15, Q16 (four misleading, one partly). Nab & Maslin 2020, p. 15: what the paper calls
    its source study is its own data ("60.27 g CO2e per cup … 10.04 g by traditional filter drip and French press"),
    not another work's result. "Is it OK to …" names nothing called OK (Finnveden et al. 2022, p. 3). PEFCR guidance:
    "the default B value" is led by a span naming B with its value ("the B value shall be equal to 0 as default",
    p. 114), not by the template's bracketed instruction (p. 203). Hydrogen Bank second auction news (2025, p. 1):
    "… European Economic Area" and "(EEA)." are one sentence across a text block. The renewable hydrogen delegated
    acts news (2023, p. 1): "the two … acts … each cover" asks what each act covers."""
    coffee = answerer.ask("Coffee paper (Nab & Maslin): what share of the processing-phase footprint comes from "
                          "consumption, and how many g CO2e per cup for an automatic coffee machine vs filter drip / "
                          "French press?")
    assert coffee.text.startswith("“Of the 3.05 kg CO2e kg–1 green coffee estimated, 70% was attributed to the "
                                  "consumption of coffee.”")
    assert "60.27 g CO2e per cup of coffee, in comparison to an estimated 10.04 g by traditional filter drip and " \
           "French press methods" in coffee.text
    substitution = answerer.ask("Is it OK to use substitution / system expansion in an attributional LCA, or is that "
                                "only allowed in consequential LCA? What do Finnveden et al. 2022 conclude?")
    assert not substitution.abstained and _not_stated_notes(substitution) == []
    assert "it also seems reasonable to also accept substitution in ALCA" in substitution.text.split("\n")[0]
    bids = answerer.ask("Second European Hydrogen Bank auction: how many bids from how many countries, and how much "
                        "funding was requested compared with the budget available?")
    assert "61 bids from projects in 11 countries within the European Economic Area (EEA)." in bids.text.split("\n")[0]
    assert "four times the available budget of €1.2 billion" in bids.text and _not_stated_notes(bids) == []
    cff = answerer.ask("Under the PEFCR Guidance v6.3, what range is allowed for the Circular Footprint Formula A "
                       "factor, what A value do I use if Annex C has no value for my material, and what is the "
                       "default B value?")
    assert "“In PEF studies and benchmark calculations the B value shall be equal to 0 as default.”" in cff.text
    assert "0.2 ≤ A ≤ 0.8" in cff.text and _not_stated_notes(cff) == []
    acts = answerer.ask("What do the two EU renewable hydrogen (RFNBO) delegated acts formally adopted in June 2023 "
                        "each cover, and how much renewable electricity does the Commission estimate is needed for "
                        "the 10 Mt RFNBO target?")
    lines = acts.text.split("\n")
    assert lines[0].startswith("“The first act defines under which conditions hydrogen")
    assert lines[1].startswith("“The second act provides a methodology for calculating life-cycle greenhouse gas")
    assert "around 500 TWh of renewable electricity" in acts.text


def test_review_33_another_product_the_first_contributor_and_a_dismissed_argument(answerer):
    """Review 33, Q13, Q08, Q11, and review 32, Q10. Moretti et al. 2020 assess polypropylene, not polyethylene made
    from used cooking oil: refused, not answered with Table 4's PP values (p. 6). Burchart et al. 2023, p. 11: "The
    dominant contribution, over 60%, to GHG here is direct CO2 emissions …" answers "what is the dominant
    contributor", which is no term to define. Finnveden et al. 2022, p. 3: "… then this argument would not be
    relevant" is why the 100 % rule argument is dismissed. PEFCR guidance p. 61: how the 1% cut-off is applied is
    led by its step, "To calculate a 1% cut-off order the processes …"."""
    pe = answerer.ask("What cradle-to-gate climate change impact per kg does Moretti et al. report for polyethylene "
                      "made from used cooking oil?")
    assert pe.abstained and "polyethylene" in pe.text and "0.63" not in pe.text
    pp = answerer.ask("What cradle-to-gate climate change impact per kg does Moretti et al. report for polypropylene "
                      "made from used cooking oil?")
    assert not pp.abstained and "0.63" in pp.text
    shell = answerer.ask("In Burchart et al. 2023, what is the GWP per functional unit for hydrogen without CO2 "
                         "sequestration, and what is the dominant contributor to GHG emissions in that scenario?")
    assert "34.8" in shell.text.split("\n")[0]
    assert "The dominant contribution, over 60%, to GHG here is direct CO2 emissions" in shell.text
    assert _not_stated_notes(shell) == []
    rule = answerer.ask("Do Finnveden et al. (2022) think substitution (avoided burden) can be used in attributional "
                        "LCA, and why do they dismiss the argument that it conflicts with the 100% rule?")
    assert "it also seems reasonable to also accept substitution in ALCA" in rule.text.split("\n")[0]
    assert "then this argument would not be relevant" in rule.text and _not_stated_notes(rule) == []
    cutoff = answerer.ask("PEFCR Guidance 6.3: how is the 1% cut-off rule applied, and which impact categories are "
                          "ignored when deciding which processes can be cut off?")
    assert cutoff.text.startswith("“To calculate a 1% cut-off order the processes starting from the less relevant to "
                                  "the most relevant one.”")
    assert "Human toxicity-Cancer effect, Human toxicity-non Cancer effect and Freshwater Ecotoxicity" in cutoff.text


def test_review_34_a_list_read_whole_and_a_sentence_answering_two_parts(answerer):
    """Review 34. The Hydrogen Bank pilot's projects are in four countries (news item, p. 1): the list was cut after
    Portugal, its two short items unquotable, and the next paragraph read as an item. The JRC ILCD compliance rules
    (p. 7) differentiate goal situations A, B and C, whose bullets the PDF sets apart from their items. "Virtually all
    of the 100 million tonnes of hydrogen produced each year is used in oil refining (43% in 2021) and industry (57%)"
    (Wikipedia, Hydrogen economy, p. 1) answers both parts of a question, led by the 2025 auction's "On a yearly basis,
    this would cover 7% of the EU's REPowerEU ambition …" for the first."""
    countries = answerer.ask("In which countries are the projects selected in the first Hydrogen Bank auction "
                             "located?")
    first = countries.text.split("\n")[0]
    for item in ("“• Spain (Hysencia and Catalina);”", "“• Portugal (Grey2green II and MP2X);”",
                 "“• Finland (eNRG Lahti);”", "“• and Norway (Skiga).”"):
        assert item in first
    assert "The Innovation Fund will support" not in first
    situations = answerer.ask("Which goal situations does the ILCD compliance document differentiate, and what does "
                              "Situation B cover?")
    first = situations.text.split("\n")[0]
    assert first.startswith("Under “The following goal situations are differentiated.")
    assert first.index("Situation A \"Micro-level decision support\"") < first.index(
        "Situation B \"Meso/macro-level decision support\": Decision support at a strategic level") < first.index(
        "Situation C \"Accounting\"")
    shares = answerer.ask("How much hydrogen is produced each year, and what shares go to oil refining and to "
                          "industry?")
    assert shares.text.startswith("“Virtually all of the 100 million tonnes of hydrogen produced each year is used in "
                                  "oil refining (43% in 2021) and industry (57%)")
    assert _not_stated_notes(shares) == []


def test_review_35_emission_fractions_the_studys_own_design_and_a_counted_list(answerer):
    """Review 35, Q2, Q5, Q3. PEFCR guidance p. 72: pesticides "shall be modelled as 90% emitted to the agricultural
    soil compartment, 9% emitted to air and 1% emitted to water" — refused as "no value in kg CO2e". Nab & Maslin
    2020, p. 8: "… the sustainable case studies varied from the conventional ones in three ways: …" was taken for
    the works cited in the method sentences before it. JRC ILCD compliance rules, p. 8: the three data quality levels
    are the items under "… three levels of data quality are differentiated …:", not "… in each three quality-level
    variants" (p. 5)."""
    pesticides = answerer.ask("According to the PEFCR Guidance, what default emission fractions shall be used to "
                              "model pesticides applied on the field?")
    assert not pesticides.abstained
    assert "90% emitted to the agricultural soil compartment, 9% emitted to air and 1% emitted to water" in \
        pesticides.text.split("\n")[0]
    ways = answerer.ask("In the Nab and Maslin coffee LCA, in which ways did the sustainable case studies differ from "
                        "the conventional ones?")
    assert ways.text.startswith("“Based on emission hotspots identified by previous LCAs, the sustainable case studies "
                                "varied from the conventional ones in three ways: the use of organic waste instead of "
                                "artificial fertilisers, the lack of pesticides")
    levels = answerer.ask("In the ILCD Data Network compliance rules, what are the three data quality levels for "
                          "process data sets, and for how long are the entry-level requirements meant to be in place?")
    first = levels.text.split("\n")[0]
    assert first.startswith("Under “In addition, and only for Process data sets, three levels of data quality are "
                            "differentiated") and "High quality data Basic quality data Data estimate" in first
    assert "These are defined to be in place for up to 3 years." in levels.text


def test_review_36_a_stated_change_a_share_of_the_whole_and_a_version_still_to_come(answerer):
    """Review 36, Q06, Q11, O2, O3. Burchart et al. 2023, p. 11: "… reduces GHG emissions by about 44% from 34.8
    kgCO2(eq)/FU to only 19.5 kgCO2(eq)/FU" answers by how much sequestration cuts them, not the comparison with a
    cited factor (p. 13). Ritchie 2020, p. 2: "For most food products, it accounts for less than 10%" is food's
    share, "less than 1% of beef's GHG emissions" one food's. The library names the third auction and the
    Pathfinder Framework's Version 2 only as still to come: both refused."""
    cut = answerer.ask("In Burchart et al. (2023), by how much does CO2 sequestration reduce the GHG emissions per "
                       "functional unit of hydrogen from Shell coal gasification?")
    assert "reduces GHG emissions by about 44% from 34.8 kgCO2(eq)/FU to only 19.5 kgCO2(eq)/FU" in \
        cut.text.split("\n")[0]
    share = answerer.ask("According to Our World in Data, what share of food's greenhouse gas emissions typically "
                         "comes from transport, and how much more CO2eq per tonne-kilometre does air freight emit than "
                         "shipping by boat?")
    assert "For most food products, it accounts for less than 10%" in share.text.split("\n")[0]
    assert "it emits 50 times more CO2eq than boat per tonne kilometer" in share.text
    third = answerer.ask("How many projects were awarded funding in the third European Hydrogen Bank auction, and "
                         "what was the total grant amount?")
    assert third.abstained and "never mention the third auction other than as one still to come" in third.text
    v2 = answerer.ask("What does version 2 of the WBCSD Pathfinder Framework require for accounting end-of-life "
                      "emissions?")
    assert v2.abstained and "never mention version 2 other than as one still to come" in v2.text
    v1 = answerer.ask("What system boundary does the WBCSD Pathfinder Framework version 1 use?")
    assert not v1.abstained and "cradle-to-gate PCF" in v1.text.split("\n")[0]


def test_review_37_an_amount_asked_with_what_is_is_not_noted_unstated(answerer):
    """Review 37, Q15: "The annual harvest is around 950,000 tonnes, around half of which is marketed in Italy."
    (Wikipedia, South Tyrolean apple, p. 2) was quoted, and a note said the harvest part was not stated: "what is
    the annual apple harvest" was read as asking what the term means."""
    answer = answerer.ask("How large is the South Tyrolean apple-growing area, and what is the annual apple harvest "
                          "there?")
    assert "18,400 hectares" in answer.text.split("\n")[0]
    assert "“The annual harvest is around 950,000 tonnes, around half of which is marketed in Italy.”" in answer.text
    assert _not_stated_notes(answer) == []


def test_review_37_which_report_and_which_stages_excluded_pathfinder(answerer):
    """Review 37, Q11: "which IPCC report" was read as asking a value in kg CO2e (the lead was "PCFs shall be
    exchanged … providing kg of CO₂e per declared unit"), the five life cycle stages answered "which … are excluded",
    and a note said the exclusions were unstated. The Pathfinder Framework states both: AR 5 (pp. 18, 40) and "… exclude
    downstream emissions related to the product use and end-of-life stages" (p. 18)."""
    answer = answerer.ask("Under the WBCSD Pathfinder Framework, which IPCC report must the GWP characterization "
                          "factors come from, and which life cycle stages are excluded from the PCF boundary?")
    lines = answer.text.split("\n")
    assert "IPCC Assessment Report AR 5" in lines[0]
    assert "exclude downstream emissions related to the product use and end-of-life stages" in lines[1]
    assert "five stages" not in lines[1]
    assert _not_stated_notes(answer) == []


def test_review_37_a_later_version_and_a_third_auction_are_refused_as_still_to_come(answerer):
    """Review 37, Q19–Q20: the library holds version 1 of the Pathfinder Framework, whose roadmap figure prints
    "Included in Framework Version 2" (p. 8), and names a third Hydrogen Bank auction only as one the Commission
    "aims to launch" (2025 news, p. 1). Both refusals say so, not that no value in kg CO2e or EUR per kg was found."""
    answer = answerer.ask("Which IPCC assessment report does the WBCSD Pathfinder Framework Version 2 require for GWP "
                          "characterization factors?")
    assert answer.abstained
    assert "never mention Version 2 other than as one still to come" in answer.text
    answer = answerer.ask("What were the winning bid prices in the third European Hydrogen Bank auction?")
    assert answer.abstained
    assert "the third auction other than as one still to come" in answer.text


def test_review_37_the_row_with_the_lowest_bid_price_leads(answerer):
    """Review 37, Q14: "which project had the lowest bid price" quoted the whole pilot bid table and never said which
    is lowest. Of the six winning bids (Hydrogen Bank pilot news, p. 2) eNRG Lahti's 0.37 EUR/kg is the lowest."""
    answer = answerer.ask("In the first European Hydrogen Bank auction, which project had the lowest bid price and "
                          "what was that price?")
    first = answer.text.split("\n")[0]
    assert first.startswith("Lowest “Bid price (EUR/kg)” of the table's rows: eNRG Lahti Nordic Ren-Gas Oy Finland: "
                            "Bid price (EUR/kg) 0.37;")
    assert "Grey2Green" not in first and "0.48" not in first
    assert answer.citations[0].page == 2


def test_review_37_a_total_calculated_for_two_cases_leads_with_both_values(answerer):
    """Review 37, Q04: "what total carbon footprint was calculated for conventional coffee from Vietnam and for
    sustainable coffee from Brazil" was read as asking how it was calculated, and "The carbon footprint was calculated
    separately for each case study …" led. Nab & Maslin 2020, p. 12: 16.04 and 3.37 kg CO2e kg–1 green coffee."""
    answer = answerer.ask("In Nab and Maslin's coffee LCA, what total carbon footprint was calculated for conventional "
                          "coffee from Vietnam and for sustainable coffee from Brazil?")
    first = answer.text.split("\n")[0]
    assert "conventional coffee from Vietnam was calculated to have the highest carbon footprint (16.04 kg" in first
    assert "sustainable coffee from Brazil (3.37 kg CO2e" in first


def test_review_37_the_authors_verdict_on_substitution_in_alca_is_quoted(answerer):
    """Review 37, Q10: "Can system expansion and substitution be used in attributional LCA" quoted the verdict on
    system expansion only; the authors' own sentence on both (Finnveden et al. 2022, p. 4) was joined to the cited
    claim after it ("It has also been suggested … [4]") and left out as another work's; it names both and leads."""
    answer = answerer.ask("Can system expansion and substitution be used in attributional LCA, according to Finnveden "
                          "et al. (2022)?")
    assert answer.text.startswith("“As discussed above, it seems reasonable that system expansion and substitution "
                                  "can be compatible with ALCA.”")
    assert answer.citations[0].page == 4


def test_review_38_a_special_case_keeps_its_limit_and_each_act_is_answered(answerer):
    """Review 38, Q10 (misleading) and Q12. Finnveden et al. 2022, p. 2: "Another example where the 100 % rule could be
    valid … so that the 100 % rule can be valid." was quoted without "This is, however, a special case and not a
    general aspect of ALCA." after it; the delegated acts news (p. 1): "What do the two … acts … each cover" is
    answered by the first act and the second act, then the 500 TWh."""
    finnveden = answerer.ask("Does Finnveden et al. (2022) consider the 100% rule correct, and can system expansion "
                             "and substitution be used in attributional LCA?")
    for line in finnveden.text.split("\n"):
        if "so that the 100 % rule can be valid." in line:
            assert "so that the 100 % rule can be valid. This is, however, a special case and not a general aspect " \
                   "of ALCA.”" in line
    acts = answerer.ask("What do the two EU delegated acts on renewable hydrogen (RFNBOs) adopted in 2023 each cover, "
                        "and how much renewable electricity does the Commission estimate is needed for the 10 million "
                        "tonne 2030 target?")
    lines = acts.text.split("\n")
    assert "the first act clarifies the principle of “additionality”" in lines[0]
    assert "the second act takes into consideration, emissions associated with taking electricity from the grid" in \
        lines[1]
    assert "around 500 TWh of renewable electricity" in lines[2]


def test_review_38_how_categories_are_identified_and_a_reduction_without_a_measure(answerer):
    """Review 38, Q1 and Q6. PEFCR guidance p. 50: "how are the most relevant impact categories identified" is led by
    "… shall be identified as all impact categories that cumulatively contribute to at least 80% …", not by the
    toxicity categories "excluded from the procedure to identify" them (p. 47). Moretti et al. 2020, p. 10: asked
    "(without biogenic carbon removal) … how much lower is it than petrochemical PP", the baseline's "62% lower" is
    that case's, not another scenario's."""
    pefcr = answerer.ask("Under the PEFCR Guidance v6.3, how are the most relevant impact categories identified, and "
                         "what is the minimum number of impact categories that must be considered?")
    assert pefcr.text.startswith("“The most relevant impact categories shall be identified as all impact categories "
                                 "that cumulatively contribute to at least 80%")
    assert "“At last three relevant impact categories shall be considered.”" in pefcr.text
    moretti = answerer.ask("What is the cradle-to-factory-gate climate change impact of 1 kg of UCO-based "
                           "polypropylene (without biogenic carbon removal) in Moretti et al., and how much lower is "
                           "it than petrochemical PP?")
    lines = moretti.text.split("\n")
    assert "Climate change (without biogenic carbon removal (BCR)): Value 0.63 kg CO2eq" in lines[0]
    assert "Hence, UCO-based PP (baseline) has a 62% lower impact on climate change" in lines[1]
