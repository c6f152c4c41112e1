# latexmk configuration for the example project: build main.tex to PDF with pdflatex + BibTeX.
#   latexmk -pdf -interaction=nonstopmode -halt-on-error main.tex
$pdf_mode = 1;        # pdflatex
$postscript_mode = 0;
$dvi_mode = 0;
$bibtex_use = 2;      # run BibTeX when refs.bib changes; remove .bbl on clean
@default_files = ('main.tex');
