"""The dashboard's pages, one module each: the studies (:mod:`.studies`), a study's queries and answers
(:mod:`.queries`) and a results directory (:mod:`.results`). Each gives its routes for a
:class:`~safebandits.dashboard.site.Site`."""
