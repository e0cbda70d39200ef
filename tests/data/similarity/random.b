afidfdedcibhi a
ghb
hifgech gadhc
 fhejeifajcfecad  
af

h
gi dcjdfgdhb ae
edefd fcdgdgfchcjdj fhdbibgicfgebaadbbccjchbc ifhdff
dajbgcbeb
 gga gdfgccgccahhefddgj
fbcg fidf jiafiie ac ajhbfaaggd
jg 
 
eijeicji ecdf  gbbdhhhgf  fji jb
ifad
ee 
ca  cieghccbfd

jhdajgha
f
bcgg j fjdcej
f jcg ajjheabda
hee  c caeij gd
g
 ciheheghacicg
dbdhfeiff
fb ieajjcbhiafcdhdcj
ijejijfejehii ebb

dhca  jbdbehe
bb f  
dijjb
giieah ej efijijgfb
ci
eecfidbgdgifieji
fah fbigbg iadabeb djiiaec cejajejdg
hbgbc aagfbdi a bf aibde
jje
gb ca f iahafjbedbcihi
fdfaje
i eab
gcde  fcci
bbehd beaagd
efdhaffdhbcbjbde

ifi hg d ff
chfehideaedhgfeag ghei dbhdbcf 
bij djejgiabibdagaif
cbi
efjif haj
eaagb 
hj haehahc dieagfbg
 ji i hbdeedd ebhjaadfcjig ag dbebebdigaeffiiedijdjbig
deaddfcaa id fceggad
fhh
fg
j
h 
jc
hgiei
e
f fdh
g i ia jgehe


ahfiadbdibe 
jdb agehcjhgjiajiahbbj bjfc aficbijfhfbaigbi

fbaeeegadcifegaca
aicedbeecijdgdhbcbfei
ja 
acaahgab
 gi
f jeef
chaaddbaef agadcahijcjbfag
 ibie iedgbehcbdfcieah cejcjbcbbied a
gic
jiaiaaaec
g fh hii ebg gj
ci  h
jedcaggcgcj
fgecaeihbeagcbfagacgaj
fedhch  ieieaiifhcddjab
caigggh jebff
eccdaijbd aibigfaacj
hgdg d jbffhdcdcf
hficacjiaagbie
jb jbjb
egfahdfde 
fdifbcebdhghfcigdfcb gb jejgbiabd jhfdh
fbeehdba
ib
jjjagghahieb je  cdedge
ijf

gh
gaeib
ci bgja e
ihi
habbbfjfddbdhbhjcjfeegjcg

fabdeg jhijhddigcdc
daehhhhfd chjjga ggchccd bh  iafgj gc hfdgfafaffeb
haaegbjc
aacadfg i
cigdbbdhijd
bjgfea bchgga

fjecbggihehhcchb
ifai
g je

adhhbjb
g jda hbcajgggaga aggaa
ggcjfgj
cjhiaji fhabe
aa

fiaaeaegaei hge cbceiac
j
fji agh
gjfca
h dafbadd
hajjiidbh
a
de iafdgj
deicb
 bdjgd aa
agagdiagj fbbhdechgdhehhijebdaaggdiefhbefdeaheaicde
 efcc ad af
adiga
jjedich
j
aii gfd  h
hggjeeaejc bihbhei cbehbhcceacb ag 
fdbfeech a
faihcbigijbcbcedege
biejib gb
igiicdiejfeabcgfhifgheccde dai
gfjc
c
ig
acccacfjgjh ejicaheedbaiieefcj
bbggbijhjg
ghihgcgcdff
ehgahd
bbjdiacfhed jf
d cijhefhh
fedf beghgi d h
h bdjhahedfbc
ddgbbfj d
hebehajcgb
fa bcda hcbfdedcdc gc ccfd hg gcbigichbgaadhijhga
ddbid edfh dfecbcj bdcchi
   iecgaf
jbddehajiadbfggh ahgfhjdbj  cbdjhh bhd
ga
hfafijafcc
aj
  d
j ddbij
ba  jg gdafdegfdf d iejbchegd cc ejdaadfdgeaa
igb

db

b

bgd 
cefggaddj ccafgaafgd bahd d ehcghbibfcf jbabf f
cjfbcafcacghcdb c 
 d
ci cf
feghd
agbbcibdg
dcjfcfiihcigdaedhj ae g
h  dhcf
a gjdi
fdjh
d bbdgddb
d
jdgdjihfjijagbh
f
hebdja fdjibijf  ich idfcccabecafafjcfedii
fcjf
aaededfbicag
b bcjbcfd
cdbbjdfbjd jajbcgihf
ccdf icheb
idh dfdjca echjiibbfcdcbhadgeje
eegcde
bddaddg j hg c dcfihfg
j
dd

hc 
fiiaf
jfdjgaje ga hfh adhfhiafefedbc
fde 
aijc
  cbe  hjfjeddb
jd cdfcc ighiffcbjjebhdfjbeigbfgeia
jhj cai
gcfhafaajdfej
g jdhecjefeg ahgjfbaeejefieb
hbh c
jjfhejagbchjeeaa
 ibcigccfejdjjg
jfbejfhjabdaj
badjjadheiiiif b
fcbhhi
gjhgcbbih


ieic
ihh if
bfiaaaeddba
ifbceaf
hagbdd
cf
deaadbhaeiia ej h cdebaeeghhghdbj dihicfib
bfa ff
 idbacdgdjfj

cafa ibfacb
jcajijf
gdbhbjah
jcaaadeaechididc  ijgccagfaccdeajda d hbfij
chcg gb
gicdbadbjhgfajjai aabf
jgb hegjh
egcacgaegcdj  ggaa
jhjdj
fdch
b
cjfahdia
bijbfbdbija
hfcibbieaddbi deajebjaahahjgijaj ig
 db
 ad b
j
a fiacice
dibjb
jhdb
ihabehee
chcjd
j ceeeaj ijhjgf ggbcb bfcedadddbbb facb dbihaggddihdbhfcdi
e
ffbd hfibie

 gchdb gb  bbdicdgif
geejc c
aihgda 
ig
dfdf
gahfgbghbcigbb j jc bahihhgeifdgj
hd
bbjgajge dfbfhfdhaii efdiiheggeccbbaidjfib
jjbedacaccbeej fa
 dde


edhe if jcbebbja
jffh
eghhhhhej ajb
 jihbdhibcaibce

h ace
a
 hcfc  jifgjg
iggeiadgjgb
 iig
fid iidbahaac
d d
edfafaijafcaejace 
b

e
ded ajdf dbcfhh i

fbefacbadbbdejeacechhjafigdaejafbac i
baj 
 jb ije
d haicdefedj
hjj i ibc eidiaa
jfi
ihce jgi
feeg
jbi fgd

dfb
egahffadai chdffgafcdjc affgabedcibejhehdh
hif chb j gbcg  if dcg
cg
e j a
eaagghbjaj
ggjffebdg ff
ghicbedifdieajcej higfdia b heddeg
jdha h dicg  hdjieje fdejfj bh
d
hhiecgjeefagjgh
iafaa
 baedh
biibddhefdffgbc  gigaeceiijjcj b dgj dhjjgeeehcd hf
gebicha d bdchjaeccbjdghffceiabgaafhbchfhjaebiijifhfjhjji b ebfh
e 
ijh dcfdfbja a ahgaeiaif gcchfbehc c

gja iihf hbbdgaicecig fegjibehjji  e dcffajcheidafdjjb
cadga g af ficgjj jji eaijbb jahg   ihdidgg
h
jab
ahagce

jjgg  jhegdffhic jd
ifbiibeic
cjhb
hec dgfjafddgdcihf 
cgdabgeid
ifgc chjd  cabhjba 

h fjhga igjigd
eggjibdba
feedeeebbdabgeh
jgijdhddbbij fifdgde 
jeaffdabeea bjah eiaiceedd faceiabbdgfjbigcgfdcc

adffhdgddddecaegebjdaib hadjjhfg hde cfcijdjg
hh
ac f
j bi fedhe c

i
jdefdc
ffaiafgf dhejh
gcidjj bbhbadfegd daie
a ia
cicgif dahiga dfihggg
h bcjgfiebdgeicijjeffhbi 
jahjheg
fe
iga ih
dfggg cifebeface
jjdeeabicjhif
d j 
jgcde febiegeea
ceafgad
d fjd
fjfdbeeageiecedhhbdhbeadfih dejhi
jfcdj i b gijfejcgegajg
cfjjjciaihjbejfghaijdgedba
iejjadfa fccibgecejahe dghaagbh
fdcgd jhjeddcjcigjeeieibdchg daad icgbfie fe
fdijbcagcdba cjhcfaddjjcf a fhgjgehi
bic hbb 
 
c ef
ghagajfae h gbfahggaheccffjhibf
haiih jej
iejgf
egc
igi ebbca
fbceheifccah ibdcideijgd
hcidfeee ciicdbbidaadfhigjdjff
c bjjeiegc ja aeehb
d hb
bbahifbjbedg
fca i
a
g
 
j bdicbbcic
dghfifghdjficgaci
fjgdh
 bffdhej f

fjdgiabgd giadaa dd
hieg
ceea
hieca ee
fjgdge
jiic