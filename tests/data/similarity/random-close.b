jabhddibfec hdaaidebbjjf f bdjhh
cafdchfa fdjdcf
dgjb iddbebdbdi 
aifiej eghf
 aiha eba 
jfedaif
cac
aageifd iah ehegcbgjfi gi dibgacggb chhbaiiiagejdih 
geadh ifeggdej
fejbid
 hj ejbe
bfce fjfcfai cdba
ehb h   ijdifbjjjcehgjac gdeijdgfbbcchj  ge d

i
cighbeed ii  fgedfh
fefa


bb fd
gde ffaieabihifhdce
effaff jg
jd ghaadai
jhcdbieggi
fbef
jjibjgcijahgdbfedhajcecdggjafeie
gfgf cbff hhijcfc adiibcbcb
ii dhahdh fbeea gfbfgi aejacibhijcfi
ieh bgffahfibca j
cdbfhb
 
jgbjaaaacbcjdfadfia
 bdh
i c e  f aic
b
 gebdb jajai
 
j f
 hjj bdchbefdb
hgff
fciie
fhgcc gbajbii chbcbh cjgahghbehadcdci jgciic
 hfhegfhid
bdcdgecfi ceehcbbfihaaiajhhh
bjabgjbhfdhbbbc aadhfbjdjh ddbgcdh
cj jjbfig f
hghg jabia
cfi fjdcg bfh
iabjbabaachi gfaa ag bbadad
h e bbiidcfdg bafaecb
e
j jdgdfja ibie  jjjge
hj
jhehbce
jgdjhibieb
eefd aiebdeie
jdeihjb

 aefh fajed gafjajgcacjgh dbd

edcdh ah
cfgdfb
dhc b hih

gegfadefb d
bec
jfjhf dbf
df gdgjbd

g dibbcjiddgfcec f cea
 acdg
f ab igijc 
aje jbc
ffcgiegebehjjgfggfd g
fafbfbbieidifc
 hhicjdfagcicccc
gjaccgbaejggbajc
bfdecdidehaae 
 fibdhcb
h  afdhjf
eaicdi

cgea
hjcac
j
 jfghji c
deca
fddjb 
 hdcdjccbgb bgbd
a
i
jagieebag e g eagfbibc
jajabgi
febgdc jeia fc
c

ffh
fjd
gfai
ddbace e
gihffajbifefe gbbib jj
gfh
ijh
 dceg
beidhgaeibibfhefgigaebbi
ibi
effgdafiehdi
adfbif 
iaccefjbgadcbhahdf
fbd
djfej ha
cg icijhdjcefabicicfjcc jf
b ih
bghdfje
ebgh
hba d dbajbbibjbbbjidbajibgfcdc  ge
gccfifiech dehghahbaie
geghbhadbdag
fic  bajdi gciihdca
fejgag
ahbehcahhcdfcajhehacdaeh 
f j
d
gdcgihjjbd

gcebgifbggacdcha aahg  gii dhhge
igif
fb
aecbgejeh cechc
i
jjbhdhjicbijgfgabb
jjdabfh egjibdiiei
gfec
hgfd
g fbib hf ebfdj
dbieecdaegj bdbhdg cg j hfcd a
chffbjgbbe adfdb jgfedi
cheh

bdgca jchc e jibec
h
hi
f baheecebaedc
iabea 

a
dafdgbhh
dejgi
bbae hijfjai cjgaheabaa  
 eeciieaad gdcefgedg d
b  dbheifejjfhgigfja aidjeb
gci ii
ehcfdjcecgb g
hci
dhhgifafjhiadbhjb aiad fcjac dhcaiffhedahieaghidegj j a j ejiceedc
bbhajcjdjadggae  gjcjcahbddgdbfgbieijihaib 
ghciae 
g hfdghdcjhdggbc  fej
g h acddbd j hia dggaiabi deeaia
gd eh
ce  fjic
d
dbf
 gaea b
dhabeh dc f
g bh
aa
i e
dcgj ffehhfbc a
 cia
jdb
cb
ae ej
i f
 ca
jghhaaajg
hcadfijfffa djbaahdeaeibcc bjejagbig eaefbchjdgch
ihaag
cbjgj
edc dficbaefbbgbedfhjjgb
 ei
gbb 
cebddie ebgh
ghbdgbcciad cidb ja ceafha gebhh
bi
ejfadcj
eiee
gad

chch j h
hffdifaajc
eg hdhhabjcei fdefdiecbg j eia

abic a cedfe ggiea jhcccgead cd  j b
cjeibgdggig
fd iacji djii e
jjhaeeeiejdjideacij jcea

ihdcefiha jj
jghfhg
hjfi
ccbcaeha
ijia jhceah 
c 
eacdcaie
aacgefd
dahbdj
acjchif
ceidjjajbacccbcjchddf hc adiafcejhjhfhf
 d b
dbciaciijdha
egbfheghcjggibdaaged
dif
dhffiac
fciiifdg 
ffacdfjgehgjbigchajgbhd dcgj g gjjdgijed
ccdfag deaabc
fcab 
gcjjffjg eabhg
j bf edeh ad
bbhbhidf if

gfjaedeiabbiheibbigjhijgdggccadba e
igfhdcfagiihbgjjfehcj jjbgdif g
ghehjfgacgcbgibicgcedejbg eeec e
f
cjh
bc ahc
hecefffb dc
f aaahfgfecabibjfgchd
bejbb gdc gijaiadha ffahfi 
aaifc
badaddibieibhgdefdfcdj f hb aba 
hdcgecgagdfe jejad bachdbh
cgd jfaai
idiajf
fadbce
higaeffcabefdf
 acg 
fj bdaecgbcfahg cafa bgejia
gbdjggijchdd
 ahaifhc

ea

c  abbhdbbeijagcdgae
hjjeba hbi 
 bhghfdgdhd
d
 ja
fhajgadjbabjbdeeddfcdjgja chbjd 
cgebbj jibbjahb

faefhbcchf adafb g jbgah bdfee fcb
ee
gjciai dcgjbed
ijahecghfh
 a
i bdheeajhh b jag
ccbch dfedbg gbja db ihff
d
jeejaj
df b  hafgcdc egjj hae
gcieachgbgd ce  edgi
e
cg

hgjdibaa bjggfdbbb
fcccbdfccgedeadfii
a
iaib
bdijfegfheahjfgd
fcf jhbij 
gabhaggfbadhde
dedeeeib hibcfeahfe
hiigjf
be
fcgc gb dc
bc 
gcc
jeccjihb jgc 

 jgb
ijbfi

ee
cejhih
gjgj hbc
efaacgafaejddijeebja
ec cejafficidjab
hdbidgdhgj ijiigihcg
bgj 
i
bab agjgjfejh
ifci

djfhbdgeb
decaejf  adaahjdh
cdfgddceegifbcbfbegdbigafdj
djehbheh feecehgi a eabdbj
dafdhgaag
fgiddaadgagfeighfh
 ibfijjdbja c gibj
j
heg
gddc
b
iih d bihifjgeb i cfahgd hec eifbgega edigae cjgdjie
c
jjaj
dfjdf
jefa j
eb
gifb iejeab aci
chg d fjhifdccdjchgdgbaeddihjdfbjebdd 
ihiahhi
aa fh iejbfdeagbiccdfhfb
cb
g
acg ji 

i  fabhc egceg eaj
jhdhcaiaaigfjiaeca
cdiedci gjb g faee 